package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
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
func put(tb testing.TB, s *Store, snap *snapshot.Snapshot, makeCurrent bool) {
	tb.Helper()
	err := s.WriteRelease(context.Background(), WriteOptions{MakeCurrent: makeCurrent}, func(w *ReleaseWriter) error {
		return fillLinted(w, snap, fileStateOf(snap))
	})
	if err != nil {
		tb.Fatalf("put(%s/%s): %v", snap.Release.Project, snap.Release.ID, err)
	}
}

// fillLinted gives w every part of snap and the findings of the schema
// rules about its tables (lint.Release), as an import writes them.
func fillLinted(w *ReleaseWriter, snap *snapshot.Snapshot, file FileState) error {
	w.Release(snap.Release, snap.Origin)
	w.File(file)
	for _, c := range snap.Connections {
		if err := w.Connection(c); err != nil {
			return err
		}
	}
	for i := range snap.Tables {
		if err := w.Table(&snap.Tables[i]); err != nil {
			return err
		}
	}
	if err := w.Findings(lint.Release(snap)); err != nil {
		return err
	}
	for i := range snap.Logics {
		if err := w.Logic(&snap.Logics[i]); err != nil {
			return err
		}
	}
	return nil
}

func fileStateOf(snap *snapshot.Snapshot) FileState {
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
func sampleSnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_42", Project: "shop", Environment: "dev", Version: 42, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceHub, Digest: "sha256:" + strings.Repeat("ab", 32), SyncedAt: "2026-11-02T09:30:00Z"},
		Connections: []snapshot.Connection{
			{Name: "main", Engine: "postgres"},
			{Name: "analytics", Engine: "clickhouse"},
		},
		Tables: []snapshot.Table{
			{
				Name: "users", Connection: "main", Comment: "People who can sign in",
				Columns: []snapshot.Column{
					{Name: "id", Type: "string"},
					{Name: "email", Type: "string", Comment: "login, lower case"},
					{Name: "display_name", Type: "string", Nullable: true},
					{Name: "role", Type: "string", Default: "'member'", Enum: []string{"member", "admin", "support"}},
					{Name: "org_id", Type: "string", Nullable: true},
					{Name: "invited_by", Type: "string", Nullable: true, Comment: "the inviting user"},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					// organizations is not in the release.
					{Name: "users_org_fk", Columns: []string{"org_id"}, RefConnection: "main", RefTable: "organizations", RefColumns: []string{"id"}, OnDelete: "set null"},
					{Name: "users_invited_by_fk", Columns: []string{"invited_by"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}},
				},
				Indexes: []snapshot.Index{
					{Name: "users_email_key", Columns: []string{"email"}, Unique: true},
					{Name: "users_org_role_idx", Columns: []string{"org_id", "role"}},
				},
			},
			{
				Name: "posts", Connection: "main", Comment: "Blog posts",
				Columns: []snapshot.Column{
					{Name: "id", Type: "string"},
					{Name: "author_id", Type: "string", Comment: "writer"},
					{Name: "status", Type: "string", Default: "'draft'", Enum: []string{"draft", "published"}},
					{Name: "body", Type: "text", Nullable: true},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					{Name: "posts_author_fk", Columns: []string{"author_id"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}, OnDelete: "cascade"},
				},
				Indexes: []snapshot.Index{{Name: "posts_author_idx", Columns: []string{"author_id"}}},
			},
			{
				Name: "purchases", Connection: "main",
				Columns: []snapshot.Column{
					{Name: "user_id", Type: "string"},
					{Name: "item_id", Type: "string"},
					{Name: "quantity", Type: "integer", Default: "1"},
					{Name: "bought_at", Type: "timestamp", Default: "now()"},
				},
				// Key order differs from column order on purpose.
				PrimaryKey: []string{"item_id", "user_id"},
				ForeignKeys: []snapshot.ForeignKey{
					{Name: "purchases_user_fk", Columns: []string{"user_id"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}, OnDelete: "cascade"},
					// items is not in the release; the key has no name.
					{Columns: []string{"item_id"}, RefConnection: "main", RefTable: "items", RefColumns: []string{"id"}},
				},
			},
			{
				Name: "refunds", Connection: "main", Comment: "Money sent back",
				Columns: []snapshot.Column{
					{Name: "id", Type: "integer"},
					{Name: "user_id", Type: "string"},
					{Name: "item_id", Type: "string"},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					{Name: "refunds_purchase_fk", Columns: []string{"item_id", "user_id"}, RefConnection: "main", RefTable: "purchases", RefColumns: []string{"item_id", "user_id"}, OnDelete: "restrict"},
				},
			},
			{
				Name: "users", Connection: "analytics", Comment: "Activity per user",
				Columns: []snapshot.Column{
					{Name: "id", Type: "string"},
					{Name: "last_seen", Type: "timestamp", Nullable: true},
				},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					{Name: "analytics_users_main_fk", Columns: []string{"id"}, RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}},
				},
			},
			{
				// No primary key, no comment.
				Name: "events", Connection: "analytics",
				Columns: []snapshot.Column{
					{Name: "user_id", Type: "string"},
					{Name: "kind", Type: "string", Enum: []string{"login", "logout"}},
					{Name: "at", Type: "timestamp"},
				},
				ForeignKeys: []snapshot.ForeignKey{
					{Name: "events_user_fk", Columns: []string{"user_id"}, RefConnection: "analytics", RefTable: "users", RefColumns: []string{"id"}},
				},
				Indexes: []snapshot.Index{{Name: "events_at_idx", Columns: []string{"at"}}},
			},
		},
		Logics: []snapshot.Logic{
			{
				Name: "purchase_item", Description: "Buy one item",
				SQL: "INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id",
				Params: []snapshot.Param{
					{Name: "user_id", Type: "string", Required: true},
					{Name: "item_id", Type: "string", Required: true},
					{Name: "quantity", Type: "integer"},
				},
				Auth: snapshot.Auth{Required: true, Roles: []string{"authenticated"}},
			},
			{
				Name: "admin/users", Description: "List users for the admin console",
				SQL:    "SELECT id, email, role FROM users ORDER BY email LIMIT :limit",
				Params: []snapshot.Param{{Name: "limit", Type: "integer"}},
				Auth:   snapshot.Auth{Required: true, Roles: []string{"admin", "support"}},
			},
			{
				Name: "ping", SQL: "SELECT 1",
			},
		},
	}
}

// sampleTable returns a fresh copy of the sample table connection.name.
func sampleTable(tb testing.TB, connection, name string) *snapshot.Table {
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
func smallSnapshot(project, id, env string, version int64, prefix string, n int) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: id, Project: project, Environment: env, Version: version, CreatedAt: "2026-10-01T00:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-10-01T00:00:01Z"},
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}},
	}
	for i := range n {
		t := snapshot.Table{
			Name: fmt.Sprintf("%s_%03d", prefix, i), Connection: "main",
			Columns:    []snapshot.Column{{Name: "id", Type: "integer"}, {Name: "prev_id", Type: "integer", Nullable: true}},
			PrimaryKey: []string{"id"},
			Indexes:    []snapshot.Index{{Name: fmt.Sprintf("%s_%03d_prev", prefix, i), Columns: []string{"prev_id"}}},
		}
		if i > 0 {
			t.ForeignKeys = []snapshot.ForeignKey{{Columns: []string{"prev_id"}, RefConnection: "main",
				RefTable: fmt.Sprintf("%s_%03d", prefix, i-1), RefColumns: []string{"id"}}}
		}
		snap.Tables = append(snap.Tables, t)
	}
	snap.Logics = []snapshot.Logic{{Name: prefix + "/count", SQL: "SELECT count(*) FROM " + prefix + "_000",
		Params: []snapshot.Param{{Name: "x", Type: "integer"}}}}
	return snap
}

// rowCounts counts the rows of every table of the index except
// schema_migrations, SQLite's own and the search index's shadow tables
// (whose segments may keep deleted rows' data until they merge), through
// the store's own read pool. The search index itself and the ordinary
// tables beside it (search_words, search_names) are counted.
func rowCounts(tb testing.TB, s *Store) map[string]int {
	tb.Helper()
	ctx := context.Background()
	rows, err := s.r.QueryContext(ctx, `SELECT name FROM pragma_table_list
		WHERE schema = 'main' AND type IN ('table', 'virtual')
		AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> 'schema_migrations' ORDER BY name`)
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
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+quoteIdent(name)).Scan(&n); err != nil {
			tb.Fatalf("count %s: %v", name, err)
		}
		out[name] = n
	}
	return out
}

// snapshotRows is what rowCounts adds up to for snap alone: its rows in
// each table of the index, the release's own row included and its current
// pointer not.
func snapshotRows(snap *snapshot.Snapshot) map[string]int {
	out := map[string]int{
		"releases":              1,
		"connections":           len(snap.Connections),
		"tables":                len(snap.Tables),
		"logics":                len(snap.Logics),
		"search":                len(snap.Tables) + len(snap.Logics), // a row per table and per logic
		"search_names":          len(snap.Tables) + len(snap.Logics), // and its name as words
		"search_words":          distinctWords(snap),
		"release_checks":        1,
		"schema_finding_counts": 4,
		"schema_findings":       schemaFindingCount(snap),
	}
	for _, t := range snap.Tables {
		out["columns"] += len(t.Columns)
		out["foreign_keys"] += len(t.ForeignKeys)
		out["indexes"] += len(t.Indexes)
	}
	for _, l := range snap.Logics {
		out["logic_params"] += len(l.Params)
	}
	if hasPostgres(snap) {
		out["release_analysis"] = 1 // pending without an Analyzer (logic_analysis_test.go)
	}
	for _, name := range []string{"logic_analysis", "logic_results", "logic_tables", "logic_bindings", "logic_problems"} {
		out[name] += 0 // written with an Analyzer only
	}
	return out
}

// addRows adds the counts of b to a.
func addRows(a, b map[string]int) {
	for name, n := range b {
		a[name] += n
	}
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

// Reading the store through its answers. The store returns every tool
// answer as JSON that SQLite composed; the helpers below decode it back
// into the domain model so that tests compare models, and they decode
// strictly: see decodeStrict.

// Reference is a foreign key seen from the table it points at: an entry of
// the referencedBy list of a schema_get_table answer, decoded.
type Reference struct {
	Table      string // the referencing table
	Connection string // its connection (the answer leaves out the table's own)
	Name       string // the foreign key's name, if any
	Columns    []string
	RefColumns []string
}

// The JSON of the answers, as docs/tools.md shapes them. A member that may be
// left out has omitempty, so that decodeStrict notices one present but
// empty; a member that must be there has none, so that it notices one
// missing. Pointers mark members whose presence is checked apart from
// their value.
type (
	wireTable struct {
		Name              string           `json:"name"`
		Connection        string           `json:"connection"`
		Comment           string           `json:"comment,omitempty"`
		PrimaryKey        *wirePrimaryKey  `json:"primaryKey"` // null when the table has none
		Columns           []wireColumn     `json:"columns"`
		ForeignKeys       []wireForeignKey `json:"foreignKeys"`
		Indexes           []wireIndex      `json:"indexes,omitempty"`
		ReferencedBy      []wireReference  `json:"referencedBy,omitempty"`
		ReferencedByTotal int              `json:"referencedByTotal,omitempty"`
		UsedBy            []wireUse        `json:"usedBy,omitempty"`
		UsedByTotal       int              `json:"usedByTotal,omitempty"`
	}
	wireUse struct {
		Logic  string `json:"logic"`
		Access string `json:"access"`
	}
	wirePrimaryKey struct {
		Name    *string         `json:"name,omitempty"` // both when the key has one column
		Type    *string         `json:"type,omitempty"`
		Columns []wireKeyColumn `json:"columns"`
	}
	wireKeyColumn struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	wireColumn struct {
		Name     string   `json:"name"`
		Type     string   `json:"type"`
		Nullable bool     `json:"nullable"`
		Comment  string   `json:"comment,omitempty"`
		Default  string   `json:"default,omitempty"`
		Enum     []string `json:"enum,omitempty"`
	}
	wireForeignKey struct {
		Name       string         `json:"name,omitempty"`
		Column     *string        `json:"column,omitempty"` // when the key has one column
		Columns    []string       `json:"columns"`
		References wireReferences `json:"references"`
		OnDelete   string         `json:"onDelete,omitempty"`
	}
	wireReferences struct {
		Table      string   `json:"table"`
		Connection string   `json:"connection,omitempty"` // only when not the table's own
		Column     *string  `json:"column,omitempty"`
		Columns    []string `json:"columns"`
	}
	wireIndex struct {
		Name    string   `json:"name,omitempty"`
		Columns []string `json:"columns"`
		Unique  bool     `json:"unique"`
	}
	wireReference struct {
		Table             string   `json:"table"`
		Connection        string   `json:"connection,omitempty"` // only when not the table's own
		Name              string   `json:"name,omitempty"`
		Columns           []string `json:"columns"`
		ReferencedColumns []string `json:"referencedColumns"`
	}

	wireLogic struct {
		Name        string      `json:"name"`
		Description string      `json:"description,omitempty"`
		SQL         string      `json:"sql"`
		Params      []wireParam `json:"params"`
		Auth        wireAuth    `json:"auth"`
		// Analysis and AnalysisPending: analysis_json.go.
		Analysis        *wireAnalysis `json:"analysis,omitempty"`
		AnalysisPending bool          `json:"analysisPending,omitempty"`
		Truncated       bool          `json:"truncated,omitempty"` // a cut answer's
	}
	wireAnalysis struct {
		Statement     string        `json:"statement"`
		Tables        []wireAccess  `json:"tables"`
		TablesTotal   int           `json:"tablesTotal,omitempty"`
		Result        []wireResult  `json:"result"` // null: no rows
		ResultTotal   int           `json:"resultTotal,omitempty"`
		Bindings      []wireBinding `json:"bindings"`
		BindingsTotal int           `json:"bindingsTotal,omitempty"`
		Problems      []wireProblem `json:"problems"`
		ProblemsTotal int           `json:"problemsTotal,omitempty"`
		Unjudged      string        `json:"unjudged,omitempty"`
	}
	wireAccess struct {
		Table      string `json:"table"`
		Connection string `json:"connection"`
		Access     string `json:"access"`
	}
	wireResult struct {
		Name     string      `json:"name"`
		Type     string      `json:"type"`
		Nullable bool        `json:"nullable"`
		Source   *wireSource `json:"source,omitempty"`
	}
	wireSource struct {
		Table  string `json:"table"`
		Column string `json:"column"`
	}
	wireBinding struct {
		Param  string `json:"param"`
		Table  string `json:"table"`
		Column string `json:"column"`
	}
	wireProblem struct {
		Code     string `json:"code"`
		Message  string `json:"message"`
		Position int    `json:"position,omitempty"`
	}
	wireParam struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Required bool   `json:"required"`
	}
	wireAuth struct {
		Required bool     `json:"required"`
		Roles    []string `json:"roles"`
	}

	wireTablesPage struct {
		Tables     []wireTableRef `json:"tables"`
		Total      int            `json:"total"`
		NextCursor string         `json:"nextCursor,omitempty"`
	}
	wireTableRef struct {
		Name       string `json:"name"`
		Connection string `json:"connection"`
	}
	wireLogicsPage struct {
		Logics     []string `json:"logics"`
		Total      int      `json:"total"`
		NextCursor string   `json:"nextCursor,omitempty"`
	}

	wireRelease struct {
		ID             string             `json:"id"`
		Project        string             `json:"project"`
		Environment    string             `json:"environment"`
		Version        int64              `json:"version"`
		CreatedAt      string             `json:"createdAt"`
		SyncedAt       string             `json:"syncedAt"`
		Tables         int                `json:"tables"`
		Logics         int                `json:"logics"`
		SchemaProblems int                `json:"schemaProblems"`
		OtherReleases  []wireOtherRelease `json:"otherReleases"`
		// OtherReleasesTotal counts the other releases when more than
		// the 100 listed are cached (the doc comment of qReleaseJSON).
		OtherReleasesTotal int `json:"otherReleasesTotal,omitempty"`
		// LogicProblems and AnalysisPending: analysis_json.go.
		LogicProblems   *int `json:"logicProblems,omitempty"`
		AnalysisPending bool `json:"analysisPending,omitempty"`
	}
	wireOtherRelease struct {
		ID      string `json:"id"`
		Version int64  `json:"version"`
	}
)

// decodeStrict decodes an answer into v, a wire type above. The answer
// must be one JSON value in valid UTF-8, with no key twice in an object and
// no member v does not name; and v, encoded again, must say exactly what
// the answer said: no member missing or null where v wants a value, and
// no optional member present but empty (empty extras are left out).
func decodeStrict(data []byte, v any) error {
	if !utf8.Valid(data) {
		return errors.New("answer is not valid UTF-8")
	}
	if !json.Valid(data) {
		return errors.New("answer is not valid JSON")
	}
	if err := checkKeysOnce(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	again, err := json.Marshal(v)
	if err != nil {
		return err
	}
	got, err := jsonValue(data)
	if err != nil {
		return err
	}
	want, err := jsonValue(again)
	if err != nil {
		return err
	}
	if diff := gocmp.Diff(got, want); diff != "" {
		return fmt.Errorf("the answer differs from its decoded form: a member is missing, null or empty (-answer +decoded):\n%s", diff)
	}
	return nil
}

// jsonValue decodes data generically, numbers kept as written.
func jsonValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// checkKeysOnce fails when an object of data has a key twice (which
// encoding/json would silently take the last of) or when more follows the
// value.
func checkKeysOnce(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				k := key.(string)
				if seen[k] {
					return fmt.Errorf("key %q twice in one object", k)
				}
				seen[k] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more after the JSON value")
	}
	return nil
}

// tableAnswer is a schema_get_table answer decoded.
type tableAnswer struct {
	Table        *snapshot.Table
	ReferencedBy []Reference
	// ReferencedByTotal is the answer's referencedByTotal: 0 when it
	// lists every reference.
	ReferencedByTotal int
}

// decodeTable decodes and checks a schema_get_table answer (docs/tools.md).
func decodeTable(data []byte) (*tableAnswer, error) {
	var w wireTable
	if err := decodeStrict(data, &w); err != nil {
		return nil, err
	}
	if w.Name == "" || w.Connection == "" {
		return nil, fmt.Errorf("table without a name or connection: %q.%q", w.Connection, w.Name)
	}
	if w.Columns == nil || w.ForeignKeys == nil {
		return nil, errors.New("columns and foreignKeys must be arrays, even empty")
	}
	t := &snapshot.Table{Name: w.Name, Connection: w.Connection, Comment: w.Comment}
	types := map[string]string{}
	for _, c := range w.Columns {
		t.Columns = append(t.Columns, snapshot.Column(c))
		types[c.Name] = c.Type
	}
	if pk := w.PrimaryKey; pk != nil {
		if len(pk.Columns) == 0 {
			return nil, errors.New(`a primary key without columns: want "primaryKey": null`)
		}
		for _, c := range pk.Columns {
			typ, ok := types[c.Name]
			if !ok || typ != c.Type {
				return nil, fmt.Errorf("primary key column %q of type %q: the table has no such column", c.Name, c.Type)
			}
			t.PrimaryKey = append(t.PrimaryKey, c.Name)
		}
		if one := len(pk.Columns) == 1; one != (pk.Name != nil) || one != (pk.Type != nil) {
			return nil, fmt.Errorf("primary key of %d columns: name and type must be given exactly when it has one", len(pk.Columns))
		}
		if pk.Name != nil && (*pk.Name != pk.Columns[0].Name || *pk.Type != pk.Columns[0].Type) {
			return nil, fmt.Errorf("primary key name %q and type %q are not those of its column", *pk.Name, *pk.Type)
		}
	}
	for _, fk := range w.ForeignKeys {
		r := fk.References
		if fk.Columns == nil || r.Columns == nil || r.Table == "" {
			return nil, fmt.Errorf("foreign key %q: columns, references.table and references.columns are required", fk.Name)
		}
		if one := len(fk.Columns) == 1; one != (fk.Column != nil) || (one && *fk.Column != fk.Columns[0]) {
			return nil, fmt.Errorf("foreign key %q: column must be given, as columns[0], exactly when it has one column", fk.Name)
		}
		if one := len(r.Columns) == 1; one != (r.Column != nil) || (one && *r.Column != r.Columns[0]) {
			return nil, fmt.Errorf("foreign key %q: references.column must be given, as references.columns[0], exactly when it has one column", fk.Name)
		}
		if r.Connection == t.Connection {
			return nil, fmt.Errorf("foreign key %q: references.connection names the table's own connection %q", fk.Name, r.Connection)
		}
		ref := snapshot.ForeignKey{Name: fk.Name, Columns: fk.Columns, RefConnection: cmp.Or(r.Connection, t.Connection),
			RefTable: r.Table, RefColumns: r.Columns, OnDelete: fk.OnDelete}
		t.ForeignKeys = append(t.ForeignKeys, ref)
	}
	for _, ix := range w.Indexes {
		if ix.Columns == nil {
			return nil, fmt.Errorf("index %q: columns are required", ix.Name)
		}
		t.Indexes = append(t.Indexes, snapshot.Index(ix))
	}
	a := &tableAnswer{Table: t, ReferencedByTotal: w.ReferencedByTotal}
	for _, r := range w.ReferencedBy {
		if r.Table == "" || r.Columns == nil || r.ReferencedColumns == nil {
			return nil, fmt.Errorf("referencedBy entry %+v: table, columns and referencedColumns are required", r)
		}
		if r.Connection == t.Connection {
			return nil, fmt.Errorf("referencedBy entry %+v names the table's own connection", r)
		}
		a.ReferencedBy = append(a.ReferencedBy, Reference{Table: r.Table, Connection: cmp.Or(r.Connection, t.Connection),
			Name: r.Name, Columns: r.Columns, RefColumns: r.ReferencedColumns})
	}
	switch n := len(a.ReferencedBy); {
	case n > 100:
		return nil, fmt.Errorf("referencedBy lists %d entries, more than 100", n)
	case a.ReferencedByTotal != 0 && (n != 100 || a.ReferencedByTotal <= 100):
		return nil, fmt.Errorf("referencedByTotal %d with %d entries listed: want it only past 100, with 100 listed", a.ReferencedByTotal, n)
	}
	return a, nil
}

// readTableAnswer reads and decodes the schema_get_table answer for
// connection.name. An error of the store is returned; an answer that does
// not decode, or names another table, fails the test.
func readTableAnswer(tb testing.TB, s *Store, target Target, connection, name string) (*tableAnswer, error) {
	tb.Helper()
	data, err := s.TableJSON(context.Background(), target, connection, name)
	if err != nil {
		return nil, err
	}
	a, err := decodeTable(data)
	if err != nil {
		tb.Fatalf("TableJSON(%q, %q): %v\n%s", connection, name, err, data)
	}
	if a.Table.Name != name || (connection != "" && a.Table.Connection != connection) {
		tb.Fatalf("TableJSON(%q, %q) answered table %q.%q", connection, name, a.Table.Connection, a.Table.Name)
	}
	return a, nil
}

// readTable reads the table connection.name of target's current release
// (any connection when connection is "") and the foreign keys pointing at
// it, through TableJSON. An error of the store is returned; an answer that
// does not decode, names another table or lists only some references
// fails the test.
func readTable(tb testing.TB, s *Store, target Target, connection, name string) (*snapshot.Table, []Reference, error) {
	tb.Helper()
	a, err := readTableAnswer(tb, s, target, connection, name)
	if err != nil {
		return nil, nil, err
	}
	if a.ReferencedByTotal != 0 {
		tb.Fatalf("TableJSON(%q, %q) lists %d of %d references; read it with readTableAnswer",
			connection, name, len(a.ReferencedBy), a.ReferencedByTotal)
	}
	return a.Table, a.ReferencedBy, nil
}

// readTables lists the tables of target's current release (of connection
// only, unless it is ""), walking TablesPage a few tables at a time.
func readTables(tb testing.TB, s *Store, target Target, connection string) ([]TableRef, error) {
	tb.Helper()
	return readTablesBy(tb, s, target, connection, 3)
}

// readTablesBy lists the tables of target's current release by pages of
// limit (0: the default). It checks every page: the same total on each,
// no page larger than the limit, nextCursor exactly on the pages that are
// followed by more, every table once, sorted by connection and name,
// total tables in all. An error of the store on the first page is
// returned; any other problem fails the test.
func readTablesBy(tb testing.TB, s *Store, target Target, connection string, limit int) ([]TableRef, error) {
	tb.Helper()
	size := cmp.Or(limit, DefaultPageLimit)
	out := []TableRef{}
	cursor, total := "", -1
	for page := 1; ; page++ {
		data, err := s.TablesPage(context.Background(), target, connection, PageRequest{Cursor: cursor, Limit: limit})
		if err != nil {
			if page == 1 {
				return nil, err
			}
			tb.Fatalf("TablesPage(%q, limit %d), page %d: %v", connection, limit, page, err)
		}
		var p wireTablesPage
		if err := decodeStrict(data, &p); err != nil {
			tb.Fatalf("TablesPage(%q, limit %d), page %d: %v\n%s", connection, limit, page, err, data)
		}
		switch {
		case p.Tables == nil:
			tb.Fatalf("TablesPage(%q), page %d: tables must be an array: %s", connection, page, data)
		case total >= 0 && p.Total != total:
			tb.Fatalf("TablesPage(%q), page %d: total %d, the first page said %d", connection, page, p.Total, total)
		case len(p.Tables) > size:
			tb.Fatalf("TablesPage(%q, limit %d), page %d: %d tables", connection, limit, page, len(p.Tables))
		case p.NextCursor != "" && len(p.Tables) < size:
			tb.Fatalf("TablesPage(%q, limit %d), page %d: %d tables and a nextCursor: a page with more after it is full",
				connection, limit, page, len(p.Tables))
		case page > 1 && len(p.Tables) == 0:
			tb.Fatalf("TablesPage(%q, limit %d), page %d: empty, after a page that had a nextCursor", connection, limit, page)
		}
		total = p.Total
		for _, t := range p.Tables {
			if connection != "" && t.Connection != connection {
				tb.Fatalf("TablesPage(%q) lists %q.%q", connection, t.Connection, t.Name)
			}
			out = append(out, TableRef{Connection: t.Connection, Name: t.Name})
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	for i := 1; i < len(out); i++ {
		if compareRefs(out[i-1], out[i]) >= 0 {
			tb.Fatalf("TablesPage(%q, limit %d): %v listed after %v: want each table once, by connection and name",
				connection, limit, out[i], out[i-1])
		}
	}
	if len(out) != total {
		tb.Fatalf("TablesPage(%q, limit %d): %d tables on all pages, total says %d", connection, limit, len(out), total)
	}
	return out, nil
}

// compareRefs orders tables as the lists do: by connection, then name,
// byte by byte (SQLite's BINARY collation).
func compareRefs(a, b TableRef) int {
	if c := strings.Compare(a.Connection, b.Connection); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// decodeLogic decodes and checks a logic_get answer.
func decodeLogic(data []byte) (*snapshot.Logic, error) {
	var w wireLogic
	if err := decodeStrict(data, &w); err != nil {
		return nil, err
	}
	if w.Params == nil || w.Auth.Roles == nil {
		return nil, errors.New("params and auth.roles must be arrays, even empty")
	}
	l := &snapshot.Logic{Name: w.Name, Description: w.Description, SQL: w.SQL,
		Auth: snapshot.Auth{Required: w.Auth.Required, Roles: w.Auth.Roles}}
	for _, p := range w.Params {
		l.Params = append(l.Params, snapshot.Param(p))
	}
	return l, nil
}

// readLogic reads a logic of target's current release through LogicJSON.
// An error of the store is returned; an answer that does not decode or
// names another logic fails the test.
func readLogic(tb testing.TB, s *Store, target Target, name string) (*snapshot.Logic, error) {
	tb.Helper()
	data, err := s.LogicJSON(context.Background(), target, name)
	if err != nil {
		return nil, err
	}
	l, err := decodeLogic(data)
	if err != nil {
		tb.Fatalf("LogicJSON(%q): %v\n%s", name, err, data)
	}
	if l.Name != name {
		tb.Fatalf("LogicJSON(%q) answered logic %q", name, l.Name)
	}
	return l, nil
}

// readLogics lists the logics of target's current release, walking
// LogicsPage a few at a time.
func readLogics(tb testing.TB, s *Store, target Target) ([]string, error) {
	tb.Helper()
	return readLogicsBy(tb, s, target, 2)
}

// readLogicsBy lists the logics of target's current release by pages of
// limit (0: the default), checking each page as readTablesBy does.
func readLogicsBy(tb testing.TB, s *Store, target Target, limit int) ([]string, error) {
	tb.Helper()
	size := cmp.Or(limit, DefaultPageLimit)
	out := []string{}
	cursor, total := "", -1
	for page := 1; ; page++ {
		data, err := s.LogicsPage(context.Background(), target, PageRequest{Cursor: cursor, Limit: limit})
		if err != nil {
			if page == 1 {
				return nil, err
			}
			tb.Fatalf("LogicsPage(limit %d), page %d: %v", limit, page, err)
		}
		var p wireLogicsPage
		if err := decodeStrict(data, &p); err != nil {
			tb.Fatalf("LogicsPage(limit %d), page %d: %v\n%s", limit, page, err, data)
		}
		switch {
		case p.Logics == nil:
			tb.Fatalf("LogicsPage, page %d: logics must be an array: %s", page, data)
		case total >= 0 && p.Total != total:
			tb.Fatalf("LogicsPage, page %d: total %d, the first page said %d", page, p.Total, total)
		case len(p.Logics) > size:
			tb.Fatalf("LogicsPage(limit %d), page %d: %d logics", limit, page, len(p.Logics))
		case p.NextCursor != "" && len(p.Logics) < size:
			tb.Fatalf("LogicsPage(limit %d), page %d: %d logics and a nextCursor: a page with more after it is full",
				limit, page, len(p.Logics))
		case page > 1 && len(p.Logics) == 0:
			tb.Fatalf("LogicsPage(limit %d), page %d: empty, after a page that had a nextCursor", limit, page)
		}
		total = p.Total
		out = append(out, p.Logics...)
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	for i := 1; i < len(out); i++ {
		if out[i-1] >= out[i] {
			tb.Fatalf("LogicsPage(limit %d): %q listed after %q: want each logic once, sorted", limit, out[i], out[i-1])
		}
	}
	if len(out) != total {
		tb.Fatalf("LogicsPage(limit %d): %d logics on all pages, total says %d", limit, len(out), total)
	}
	return out, nil
}

// readRelease reads and decodes the release_info answer of target.
func readRelease(tb testing.TB, s *Store, target Target) (*wireRelease, error) {
	tb.Helper()
	data, err := s.ReleaseJSON(context.Background(), target)
	if err != nil {
		return nil, err
	}
	var w wireRelease
	if err := decodeStrict(data, &w); err != nil {
		tb.Fatalf("ReleaseJSON: %v\n%s", err, data)
	}
	if w.OtherReleases == nil {
		tb.Fatalf("ReleaseJSON: otherReleases must be an array, even empty: %s", data)
	}
	return &w, nil
}

// sortedTables returns the tables of snap as the lists order them.
func sortedTables(snap *snapshot.Snapshot) []TableRef {
	out := []TableRef{}
	for _, t := range snap.Tables {
		out = append(out, TableRef{Connection: t.Connection, Name: t.Name})
	}
	slices.SortFunc(out, compareRefs)
	return out
}

// sortedLogics returns the logic names of snap, sorted.
func sortedLogics(snap *snapshot.Snapshot) []string {
	out := []string{}
	for _, l := range snap.Logics {
		out = append(out, l.Name)
	}
	slices.Sort(out)
	return out
}

// headerPageSize reads the page size of a database file from its header
// (bytes 16-17, big-endian; 1 stands for 65,536).
func headerPageSize(t testing.TB, data []byte) int {
	t.Helper()
	if len(data) < 100 {
		t.Fatalf("a database of %d bytes has no header", len(data))
	}
	n := int(data[16])<<8 | int(data[17])
	if n == 1 {
		n = 65536
	}
	return n
}
