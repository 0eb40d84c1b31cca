package indexer

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/migrations"
	"github.com/hubsnap/hubsnap/store"
)

// searchTables returns the tables a search of t's current release finds,
// as connection.name, with "/comment" for those found by their comment.
func searchTables(tb testing.TB, st *store.Store, t store.Target, query string) []string {
	tb.Helper()
	res, err := st.Search(context.Background(), t, store.SearchQuery{Text: query, Kinds: []store.Kind{store.KindTable}})
	if err != nil {
		tb.Fatalf("search %q: %v", query, err)
	}
	var out []string
	for _, h := range res.Hits {
		s := h.Connection + "." + h.Table
		if h.Matched != store.MatchName {
			s += "/" + h.Matched
		}
		out = append(out, s)
	}
	return out
}

// renameTable returns an edit for shopDoc that renames table from to to.
func renameTable(from, to string) func(map[string]any) {
	return func(doc map[string]any) {
		for _, t := range doc["tables"].([]any) {
			if t := t.(map[string]any); t["name"] == from {
				t["name"] = to
			}
		}
	}
}

// addTable returns an edit for shopDoc that adds a table of connection main.
func addTable(name, comment string) func(map[string]any) {
	return func(doc map[string]any) {
		doc["tables"] = append(doc["tables"].([]any), map[string]any{
			"name": name, "comment": comment, "primaryKey": []any{"id"},
			"columns": []any{map[string]any{"name": "id", "type": "string", "nullable": false}},
		})
	}
}

// writeV1Index writes at path an index as hubsnap wrote it before search
// existed: migration 0001 only, recorded in schema_migrations as
// store.migrate creates it, with a releases row mirroring each release in
// rels (ids 1, 2, ... in that order, as a v1 index numbered them), current
// pointing at the one marked current, and a leftover v1-numbered table of
// the first release.
func writeV1Index(tb testing.TB, path string, rels []store.ReleaseInfo, files map[store.ReleaseKey]store.IndexedFile) {
	tb.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?vfs=hubsnap&_pragma=foreign_keys(1)") // with page checksums, as hubsnap writes
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	initSQL, err := fs.ReadFile(migrations.FS, "0001_init.sql")
	if err != nil {
		tb.Fatal(err)
	}
	stmts := []struct {
		sql  string
		args []any
	}{
		{string(initSQL), nil},
		// Exactly as store.migrate creates it.
		{`CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
	)`, nil},
		{"INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, '0001_init.sql', '2026-01-02T03:04:05.000Z')", nil},
	}
	for i, ri := range rels {
		id := i + 1
		f := files[store.ReleaseKey{Project: ri.Project, ID: ri.ID}]
		if f.Digest == "" {
			tb.Fatalf("no file state for %s", ri.ID)
		}
		stmts = append(stmts, struct {
			sql  string
			args []any
		}{`INSERT INTO releases (id, project, release_id, environment, version, created_at, synced_at, source,
			digest, file_digest, file_size, file_mtime, table_count, logic_count)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			[]any{id, ri.Project, ri.ID, ri.Environment, ri.Version, ri.CreatedAt, ri.SyncedAt, ri.Source,
				ri.Digest, f.Digest, f.Size, f.MTime, ri.Tables, ri.Logics}})
		if ri.Current {
			stmts = append(stmts, struct {
				sql  string
				args []any
			}{"INSERT INTO current_releases (project, environment, release) VALUES (?, ?, ?)",
				[]any{ri.Project, ri.Environment, id}})
		}
	}
	// v1 numbered rows 1, 2, ...: a table the release file does not have,
	// which must not survive into the rebuilt index.
	stmts = append(stmts, struct {
		sql  string
		args []any
	}{`INSERT INTO tables (id, release, connection, name, comment, position, primary_key)
		VALUES (1, 1, 'main', 'stale_v1_table', 'left over from v1', 0, '[]')`, nil})
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s.sql, s.args...); err != nil {
			tb.Fatalf("build the v1 index: %v\n%s", err, s.sql)
		}
	}
}

// An index from before search (schema version 1) next to real release
// files: opening the cache migrates it to version 2, rebuilds the releases
// from their files, keeps the current pointer, and search finds the
// current release's tables.
func TestV1IndexMigratesAndSearchFindsTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, addTable("legacy_invoices", "Invoices of the old billing system")))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, renameTable("posts", "articles")))

	// Roll back to rel_41, so the pointer is not simply the newest release,
	// and note what the index knows of the release files.
	c, err := Open(ctx, dir, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Use(ctx, "shop", "dev", "rel_41"); err != nil {
		t.Fatal(err)
	}
	rels, err := c.Releases(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rels) // oldest first, as a v1 index numbered them
	files, err := c.Store().IndexedFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// Replace the index with a v1 one.
	index := filepath.Join(dir, "index.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(index + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	writeV1Index(t, index, rels, files)

	c = openCache(t, dir)
	st := c.Store()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(names) < 2 || names[1] != "0002_search.sql" {
		t.Fatalf("migrations = %v, %v; want 0001_init.sql, 0002_search.sql, ...", names, err)
	}
	var newest int // the last file's number
	fmt.Sscanf(names[len(names)-1], "%04d_", &newest)
	if v, err := st.SchemaVersion(ctx); err != nil || v != newest {
		t.Errorf("schema version after open = %d, %v; want %d", v, err, newest)
	}
	cur, err := st.Current(ctx, shopDev)
	if err != nil || cur.ID != "rel_41" || cur.Tables != 7 || cur.Logics != 4 {
		t.Fatalf("current after the migration = %+v, %v; want rel_41 with 7 tables and 4 logics", cur, err)
	}
	list, err := c.Releases(ctx, "")
	if err != nil || len(list) != 2 {
		t.Errorf("releases after the migration = %+v, %v; want rel_42 and rel_41", list, err)
	}
	if got := readFile(t, filepath.Join(dir, "releases/shop/dev.current")); got != "rel_41\n" {
		t.Errorf("dev.current = %q, want rel_41", got)
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"legacy invoices", []string{"main.legacy_invoices"}},
		{"old billing", []string{"main.legacy_invoices/comment"}},
		{"posts", []string{"main.posts"}},
		{"purch", []string{"main.purchases"}},
		{"order lines", []string{"main.order_lines"}},
		{"articles", nil}, // only in rel_42
		{"stale", nil},    // only in the v1 rows
	} {
		if got := searchTables(t, st, shopDev, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.query, got, tc.want)
		}
	}
	tables, err := readTableNames(t, st, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(tables, func(n string) bool { return strings.HasSuffix(n, ".stale_v1_table") }) {
		t.Errorf("a v1 row survived the migration: %v", tables)
	}

	// The other release was rebuilt too.
	if _, err := c.Use(ctx, "shop", "dev", "rel_42"); err != nil {
		t.Fatal(err)
	}
	if got := searchTables(t, st, shopDev, "articles"); !slices.Equal(got, []string{"main.articles"}) {
		t.Errorf("search articles in rel_42 = %v", got)
	}
	if got := searchTables(t, st, shopDev, "legacy"); got != nil {
		t.Errorf("search legacy in rel_42 = %v, want nothing", got)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// Migrated, not thrown away and rebuilt: version 1's row is as it was.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(index)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v int
		var name, at string
		if err := rows.Scan(&v, &name, &at); err != nil {
			t.Fatal(err)
		}
		if v > 1 {
			at = "(now)"
		}
		got = append(got, name+" "+at)
	}
	want := []string{"0001_init.sql 2026-01-02T03:04:05.000Z"}
	for _, name := range names[1:] {
		want = append(want, name+" (now)")
	}
	if !slices.Equal(got, want) {
		t.Errorf("schema_migrations = %q, want %q", got, want)
	}
}

// After a sync, search finds the synced release's tables; after a second
// sync of a changed release, the old name is gone and the new one found,
// both in an index that stayed open (as hubsnap serve keeps it) and in a
// fresh one.
func TestSyncThenSearch(t *testing.T) {
	h := newHub(t)
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	dir := t.TempDir()
	if _, err := syncShop(t, h, dir, ""); err != nil {
		t.Fatal(err)
	}
	serving := openCache(t, dir).Store()
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"posts", []string{"main.posts"}},
		{"blog", []string{"main.posts/comment"}},
		{"articles", nil},
	} {
		if got := searchTables(t, serving, shopDev, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("after the first sync, search %q = %v, want %v", tc.query, got, tc.want)
		}
	}

	// gone is not found at all, but for the comment "Blog posts" the table
	// keeps under its new name; found is found by its name.
	check := func(when string, gone, found string) {
		t.Helper()
		fresh := openCache(t, dir).Store()
		for name, st := range map[string]*store.Store{"open index": serving, "fresh index": fresh} {
			got := searchTables(t, st, shopDev, gone)
			if gone == "posts" && slices.Equal(got, []string{"main." + found + "/comment"}) {
				got = nil
			}
			if got != nil {
				t.Errorf("%s, %s: search %q = %v, want nothing", when, name, gone, got)
			}
			if got := searchTables(t, st, shopDev, found); !slices.Equal(got, []string{"main." + found}) {
				t.Errorf("%s, %s: search %q = %v, want main.%s", when, name, found, got, found)
			}
		}
	}

	// The same release, changed on the Hub: re-indexed in place.
	h.Add("shop", shopDoc(t, "rel_42", 42, renameTable("posts", "articles")))
	res, err := syncShop(t, h, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged || res.ID != "rel_42" {
		t.Fatalf("second sync = %+v, want rel_42 re-indexed", res)
	}
	check("after rel_42 changed", "posts", "articles")
	if got := searchTables(t, serving, shopDev, "blog"); !slices.Equal(got, []string{"main.articles/comment"}) {
		t.Errorf("search blog = %v, want articles by the comment it kept", got)
	}

	// A new release.
	h.Add("shop", shopDoc(t, "rel_43", 43, renameTable("posts", "entries")))
	if res, err := syncShop(t, h, dir, ""); err != nil || res.ID != "rel_43" {
		t.Fatalf("third sync = %+v, %v; want rel_43", res, err)
	}
	check("after rel_43", "articles", "entries")
}
