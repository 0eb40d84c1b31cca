package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// shopDev is the target the sample release is current for.
var shopDev = Target{Project: "shop", Environment: "dev"}

// openStore opens a fresh index in a temporary folder and closes it when the
// test ends.
func openStore(tb testing.TB) *Store {
	tb.Helper()
	return openStoreAt(tb, filepath.Join(tb.TempDir(), "index.db"))
}

// openStoreAt opens the index at path and closes it when the test ends.
func openStoreAt(tb testing.TB, path string) *Store {
	tb.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		tb.Fatalf("Open(%q): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

// put stores snap, failing the test on error.
func put(tb testing.TB, s *Store, snap *Snapshot, makeCurrent bool) {
	tb.Helper()
	if err := s.PutRelease(context.Background(), snap, fileStateOf(snap), makeCurrent, nil); err != nil {
		tb.Fatalf("PutRelease(%s/%s): %v", snap.Release.Project, snap.Release.ID, err)
	}
}

func fileStateOf(snap *Snapshot) FileState {
	return FileState{Digest: "sha256:" + strings.Repeat("f", 64), Size: 1234, MTime: 1_700_000_000_000_000_000}
}

// sampleSnapshot is a realistic release of project shop, environment dev:
// users/posts/purchases/refunds in connection main, a second "users" and an
// "events" table in connection analytics, a composite primary key, foreign
// keys within a connection, across connections, to the same table and to
// tables outside the release, indexes, column comments, defaults and enums,
// and the logics purchase_item, admin/users and ping.
//
// Tables and logics are deliberately not in sorted order.
func sampleSnapshot() *Snapshot {
	return &Snapshot{
		Release: Release{ID: "rel_42", Project: "shop", Environment: "dev", Version: 42, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  Origin{Source: SourceHub, Digest: "sha256:" + strings.Repeat("ab", 32), SyncedAt: "2026-11-02T09:30:00Z"},
		Connections: []Connection{
			{Name: "main", Engine: "postgres"},
			{Name: "analytics", Engine: "clickhouse"},
		},
		Tables: []Table{
			{
				Name: "users", Connection: "main", Comment: "People who can sign in",
				Columns: []Column{
					{Name: "id", Type: "string"},
					{Name: "email", Type: "string", Comment: "login, lower case"},
					{Name: "display_name", Type: "string", Nullable: true},
					{Name: "role", Type: "string", Default: "'member'", Enum: []string{"member", "admin", "support"}},
					{Name: "org_id", Type: "string", Nullable: true},
					{Name: "invited_by", Type: "string", Nullable: true, Comment: "the inviting user"},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []ForeignKey{
					// organizations is not in the release.
					{Name: "users_org_fk", Columns: []string{"org_id"}, RefConnection: "main", RefTable: "organizations", RefColumns: []string{"id"}, OnDelete: "set null"},
					{Name: "users_invited_by_fk", Columns: []string{"invited_by"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}},
				},
				Indexes: []Index{
					{Name: "users_email_key", Columns: []string{"email"}, Unique: true},
					{Name: "users_org_role_idx", Columns: []string{"org_id", "role"}},
				},
			},
			{
				Name: "posts", Connection: "main", Comment: "Blog posts",
				Columns: []Column{
					{Name: "id", Type: "string"},
					{Name: "author_id", Type: "string", Comment: "writer"},
					{Name: "status", Type: "string", Default: "'draft'", Enum: []string{"draft", "published"}},
					{Name: "body", Type: "text", Nullable: true},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []ForeignKey{
					{Name: "posts_author_fk", Columns: []string{"author_id"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}, OnDelete: "cascade"},
				},
				Indexes: []Index{{Name: "posts_author_idx", Columns: []string{"author_id"}}},
			},
			{
				Name: "purchases", Connection: "main",
				Columns: []Column{
					{Name: "user_id", Type: "string"},
					{Name: "item_id", Type: "string"},
					{Name: "quantity", Type: "integer", Default: "1"},
					{Name: "bought_at", Type: "timestamp", Default: "now()"},
				},
				// Key order differs from column order on purpose.
				PrimaryKey: []string{"item_id", "user_id"},
				ForeignKeys: []ForeignKey{
					{Name: "purchases_user_fk", Columns: []string{"user_id"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}, OnDelete: "cascade"},
					// items is not in the release; the key has no name.
					{Columns: []string{"item_id"}, RefConnection: "main", RefTable: "items", RefColumns: []string{"id"}},
				},
			},
			{
				Name: "refunds", Connection: "main", Comment: "Money sent back",
				Columns: []Column{
					{Name: "id", Type: "integer"},
					{Name: "user_id", Type: "string"},
					{Name: "item_id", Type: "string"},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []ForeignKey{
					{Name: "refunds_purchase_fk", Columns: []string{"item_id", "user_id"}, RefConnection: "main", RefTable: "purchases", RefColumns: []string{"item_id", "user_id"}, OnDelete: "restrict"},
				},
			},
			{
				Name: "users", Connection: "analytics", Comment: "Activity per user",
				Columns: []Column{
					{Name: "id", Type: "string"},
					{Name: "last_seen", Type: "timestamp", Nullable: true},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []ForeignKey{
					{Name: "analytics_users_main_fk", Columns: []string{"id"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}},
				},
			},
			{
				// No primary key, no comment.
				Name: "events", Connection: "analytics",
				Columns: []Column{
					{Name: "user_id", Type: "string"},
					{Name: "kind", Type: "string", Enum: []string{"login", "logout"}},
					{Name: "at", Type: "timestamp"},
				},
				ForeignKeys: []ForeignKey{
					{Name: "events_user_fk", Columns: []string{"user_id"}, RefConnection: "analytics", RefTable: "users", RefColumns: []string{"id"}},
				},
				Indexes: []Index{{Name: "events_at_idx", Columns: []string{"at"}}},
			},
		},
		Logics: []Logic{
			{
				Name: "purchase_item", Description: "Buy one item",
				SQL: "INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id",
				Params: []Param{
					{Name: "user_id", Type: "string", Required: true},
					{Name: "item_id", Type: "string", Required: true},
					{Name: "quantity", Type: "integer"},
				},
				Auth: Auth{Required: true, Roles: []string{"authenticated"}},
			},
			{
				Name: "admin/users", Description: "List users for the admin console",
				SQL:    "SELECT id, email, role FROM users ORDER BY email LIMIT :limit",
				Params: []Param{{Name: "limit", Type: "integer"}},
				Auth:   Auth{Required: true, Roles: []string{"admin", "support"}},
			},
			{
				Name: "ping", SQL: "SELECT 1",
			},
		},
	}
}

// sampleTable returns a fresh copy of the sample table connection.name.
func sampleTable(tb testing.TB, connection, name string) *Table {
	tb.Helper()
	for _, t := range sampleSnapshot().Tables {
		if t.Connection == connection && t.Name == name {
			return &t
		}
	}
	tb.Fatalf("no sample table %s.%s", connection, name)
	return nil
}

// smallSnapshot is a tiny release with n tables named prefix_NNN, each with
// two columns, a key and a foreign key to the previous table, plus one logic.
func smallSnapshot(project, id, env string, version int64, prefix string, n int) *Snapshot {
	snap := &Snapshot{
		Release:     Release{ID: id, Project: project, Environment: env, Version: version, CreatedAt: "2026-10-01T00:00:00Z"},
		Origin:      Origin{Source: SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-10-01T00:00:01Z"},
		Connections: []Connection{{Name: "main", Engine: "postgres"}},
	}
	for i := range n {
		t := Table{
			Name: fmt.Sprintf("%s_%03d", prefix, i), Connection: "main",
			Columns:    []Column{{Name: "id", Type: "integer"}, {Name: "prev_id", Type: "integer", Nullable: true}},
			PrimaryKey: []string{"id"},
			Indexes:    []Index{{Name: fmt.Sprintf("%s_%03d_prev", prefix, i), Columns: []string{"prev_id"}}},
		}
		if i > 0 {
			t.ForeignKeys = []ForeignKey{{Columns: []string{"prev_id"}, RefConnection: "main",
				RefTable: fmt.Sprintf("%s_%03d", prefix, i-1), RefColumns: []string{"id"}}}
		}
		snap.Tables = append(snap.Tables, t)
	}
	snap.Logics = []Logic{{Name: prefix + "/count", SQL: "SELECT count(*) FROM " + prefix + "_000",
		Params: []Param{{Name: "x", Type: "integer"}}}}
	return snap
}

// rowCounts counts the rows of every table of the index except
// schema_migrations and the search index's shadow tables (whose segments
// may keep deleted rows' data until they merge), through the store's own
// read pool.
func rowCounts(tb testing.TB, s *Store) map[string]int {
	tb.Helper()
	ctx := context.Background()
	rows, err := s.r.QueryContext(ctx, `SELECT name FROM sqlite_schema
		WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'
		AND name NOT LIKE 'search\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		tb.Fatalf("list index tables: %v", err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatal(err)
		}
		names = append(names, name)
	}
	if err := rows.Close(); err != nil {
		tb.Fatal(err)
	}
	if len(names) == 0 {
		tb.Fatal("index has no tables")
	}
	out := map[string]int{}
	for _, name := range names {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM "`+name+`"`).Scan(&n); err != nil {
			tb.Fatalf("count %s: %v", name, err)
		}
		out[name] = n
	}
	return out
}

// foreignKeyViolations runs PRAGMA foreign_key_check: rows pointing at a
// parent that does not exist.
func foreignKeyViolations(tb testing.TB, s *Store) int {
	tb.Helper()
	rows, err := s.r.QueryContext(context.Background(), "PRAGMA foreign_key_check")
	if err != nil {
		tb.Fatalf("foreign_key_check: %v", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return n
}

// wantCode fails the test unless err carries code.
func wantCode(tb testing.TB, err error, code Code) {
	tb.Helper()
	if got := ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (err %v), want %q", got, err, code)
	}
}
