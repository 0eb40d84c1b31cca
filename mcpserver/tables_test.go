package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// The schema tools (tables.go): what each answers and how each fails, one
// test each, against the shop fixture.

// shopTableNames are every table name of the fixture and its connections:
// none of them may appear in a NOT_FOUND answer that did not ask for it.
var shopTableNames = []string{"users", "posts", "items", "purchases", "order_lines", "analytics"}

// qualified is connection.name of a fixture table, the name that always
// finds exactly one table.
func qualified(t snapshot.Table) string { return t.Connection + "." + t.Name }

func TestListTablesReturnsEveryTableWithNameAndConnection(t *testing.T) {
	cs := shopSession(t)
	res := call(t, cs, "schema_list_tables", map[string]any{})

	got := success[ListTablesOutput](t, res)
	want := ListTablesOutput{Tables: []answer.TableRef{
		{Name: "users", Connection: "analytics"},
		{Name: "items", Connection: "main"},
		{Name: "order_lines", Connection: "main"},
		{Name: "posts", Connection: "main"},
		{Name: "purchases", Connection: "main"},
		{Name: "users", Connection: "main"},
	}, Total: 6}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema_list_tables (-want +got):\n%s", diff)
	}

	// The wire shape: {"tables":[{"name","connection"}],"total":N}: the
	// whole list in MCP-002's shape, plus the count; no cursor, since no
	// more tables follow.
	doc := raw(t, res)
	if k := keys(doc); !slices.Equal(k, []string{"tables", "total"}) {
		t.Errorf("top-level keys = %v, want [tables total]", k)
	}
	tables, _ := doc["tables"].([]any)
	if len(tables) != len(want.Tables) {
		t.Fatalf("tables has %d entries, want %d", len(tables), len(want.Tables))
	}
	for i, e := range tables {
		m, _ := e.(map[string]any)
		if got := keys(m); !slices.Equal(got, []string{"connection", "name"}) {
			t.Errorf("tables[%d] keys = %v, want [connection name]", i, got)
		}
	}

	// The connection filter keeps the same shape.
	main := success[ListTablesOutput](t, call(t, cs, "schema_list_tables", map[string]any{"connection": "main"}))
	if diff := cmp.Diff(want.Tables[1:], main.Tables); diff != "" {
		t.Errorf("schema_list_tables connection=main (-want +got):\n%s", diff)
	}
}

func TestGetTableReturnsEveryColumnWithNameTypeNullable(t *testing.T) {
	cs := shopSession(t)
	for _, tbl := range shopSnapshot(t).Tables {
		t.Run(qualified(tbl), func(t *testing.T) {
			res := call(t, cs, "schema_get_table", map[string]any{"table": qualified(tbl)})
			got := success[answer.Table](t, res)
			if got.Name != tbl.Name || got.Connection != tbl.Connection {
				t.Errorf("got table %s.%s, want %s", got.Connection, got.Name, qualified(tbl))
			}
			type col struct {
				Name, Type string
				Nullable   bool
			}
			var want, have []col
			for _, c := range tbl.Columns {
				want = append(want, col{c.Name, c.Type, c.Nullable})
			}
			for _, c := range got.Columns {
				have = append(have, col{c.Name, c.Type, c.Nullable})
			}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			// nullable is present even when false.
			cols, _ := raw(t, res)["columns"].([]any)
			for i, c := range cols {
				m, _ := c.(map[string]any)
				for _, k := range []string{"name", "type", "nullable"} {
					if _, ok := m[k]; !ok {
						t.Errorf("columns[%d] lacks %q: %v", i, k, m)
					}
				}
			}
		})
	}
}

func TestGetTablePrimaryKeyMatchesTheKeyColumns(t *testing.T) {
	cs := shopSession(t)
	for _, tbl := range shopSnapshot(t).Tables {
		t.Run(qualified(tbl), func(t *testing.T) {
			got := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": qualified(tbl)}))
			if got.PrimaryKey == nil {
				t.Fatalf("primaryKey is null, want %v", tbl.PrimaryKey)
			}
			types := map[string]string{}
			for _, c := range tbl.Columns {
				types[c.Name] = c.Type
			}
			want := &answer.Key{}
			for _, c := range tbl.PrimaryKey {
				want.Columns = append(want.Columns, answer.KeyColumn{Name: c, Type: types[c]})
			}
			if len(tbl.PrimaryKey) == 1 {
				want.Name, want.Type = tbl.PrimaryKey[0], types[tbl.PrimaryKey[0]]
			}
			if diff := cmp.Diff(want, got.PrimaryKey); diff != "" {
				t.Errorf("primaryKey (-want +got):\n%s", diff)
			}
		})
	}

	// The MCP-002 example: users' key is {"name":"id","type":"string"}.
	got := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": "users", "connection": "main"}))
	if got.PrimaryKey == nil || got.PrimaryKey.Name != "id" || got.PrimaryKey.Type != "string" {
		t.Errorf("main.users primaryKey = %+v, want name id, type string", got.PrimaryKey)
	}
}

func TestGetTableForeignKeysNameReferencedTableAndColumns(t *testing.T) {
	cs := shopSession(t)

	// The MCP-002 example, exactly.
	posts := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": "posts"}))
	wantPosts := []answer.ForeignKey{{Name: "posts_author_fk", Column: "author_id", Columns: []string{"author_id"},
		References: answer.References{Table: "users", Column: "id", Columns: []string{"id"}}, OnDelete: "cascade"}}
	if diff := cmp.Diff(wantPosts, posts.ForeignKeys); diff != "" {
		t.Errorf("posts foreignKeys (-want +got):\n%s", diff)
	}

	// Every table against the fixture: same keys, same order, the target's
	// connection named only when it is not the table's own.
	for _, tbl := range shopSnapshot(t).Tables {
		t.Run(qualified(tbl), func(t *testing.T) {
			got := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": qualified(tbl)}))
			want := []answer.ForeignKey{}
			for _, fk := range tbl.ForeignKeys {
				f := answer.ForeignKey{Name: fk.Name, Columns: fk.Columns, OnDelete: fk.OnDelete,
					References: answer.References{Table: fk.RefTable, Columns: fk.RefColumns}}
				if fk.RefConnection != tbl.Connection {
					f.References.Connection = fk.RefConnection
				}
				if len(fk.Columns) == 1 {
					f.Column, f.References.Column = fk.Columns[0], fk.RefColumns[0]
				}
				want = append(want, f)
			}
			if diff := cmp.Diff(want, got.ForeignKeys); diff != "" {
				t.Errorf("foreignKeys (-want +got):\n%s", diff)
			}
		})
	}

	// A foreign key to another connection names it.
	rollup := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": "analytics.users"}))
	if len(rollup.ForeignKeys) != 1 || rollup.ForeignKeys[0].References.Connection != "main" {
		t.Errorf("analytics.users foreignKeys = %+v, want one to main.users", rollup.ForeignKeys)
	}
}

func TestGetTableUnknownNameIsAnError(t *testing.T) {
	cs := shopSession(t)
	res := call(t, cs, "schema_get_table", map[string]any{"table": "invoices"})
	msg := wantCode(t, res, store.NotFound)
	if !strings.Contains(msg, "invoices") {
		t.Errorf("message %q does not name the table asked for", msg)
	}
}

// Failure mode: a release with no tables lists none; it is not an error.
func TestEmptyReleaseListsNoTables(t *testing.T) {
	cs := sessionWith(t, emptySnapshot())
	res := call(t, cs, "schema_list_tables", map[string]any{})
	if res.IsError {
		t.Fatalf("isError: %s", text(t, res))
	}
	if got, want := text(t, res), `{"tables":[],"total":0}`; got != want {
		t.Errorf("text = %s, want %s", got, want)
	}
	if got := success[map[string]any](t, res); !cmp.Equal(got, map[string]any{"tables": []any{}, "total": 0.0}) {
		t.Errorf("structuredContent = %v, want {\"tables\":[],\"total\":0}", got)
	}
	// Any table of it is NOT_FOUND.
	wantCode(t, call(t, cs, "schema_get_table", map[string]any{"table": "users"}), store.NotFound)
}

// Failure mode: an unknown table is NOT_FOUND and the answer names only what
// was asked: no other table (or connection) of the release.
func TestUnknownTableNotFoundNamesOnlyWhatWasAsked(t *testing.T) {
	cs := shopSession(t)
	for _, args := range []map[string]any{
		{"table": "invoices"},
		{"table": "main.invoices"},
		{"table": "invoices", "connection": "main"},
		{"table": "posts", "connection": "warehouse"},
		{"table": "warehouse.posts"},
		{"table": "Posts"},
		{"table": "post"},
		{"table": "posts "},
	} {
		t.Run(short(args), func(t *testing.T) {
			res := call(t, cs, "schema_get_table", args)
			wantCode(t, res, store.NotFound)
			all, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			asked := strings.ToLower(short(args))
			for _, name := range shopTableNames {
				if !strings.Contains(asked, name) && strings.Contains(strings.ToLower(string(all)), name) {
					t.Errorf("answer names %q, which was not asked for: %s", name, all)
				}
			}
		})
	}
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// noReleaseTests are the ways a server ends up with no current release.
var noReleaseTests = []struct {
	name  string
	setup func(testing.TB, *store.Store)
}{
	{"never current", func(tb testing.TB, st *store.Store) {
		// A release in the index, but not current; and one of another
		// environment that is.
		snap := shopSnapshot(tb)
		if err := st.PutRelease(context.Background(), snap, store.FileState{}, false, nil); err != nil {
			tb.Fatal(err)
		}
		prod := shopSnapshot(tb)
		prod.Release.ID, prod.Release.Environment = "rel_prod", "prod"
		putCurrent(tb, st, prod)
	}},
	{"empty index", func(testing.TB, *store.Store) {}},
}

// Failure mode (MCP-002 and MCP-005): no current release, from the start or
// because the current release was deleted while serving, makes every tool
// answer NO_RELEASE.
func TestNoCurrentReleaseEveryToolAnswersNoRelease(t *testing.T) {
	for _, nt := range noReleaseTests {
		t.Run(nt.name, func(t *testing.T) {
			st := openStore(t)
			nt.setup(t, st)
			cs := connect(t, newServer(t, st))
			for _, c := range everyToolCall {
				wantCode(t, call(t, cs, c.tool, c.args), store.NoRelease)
			}
		})
	}

	t.Run("deleted while serving", func(t *testing.T) {
		st := openStore(t)
		putCurrent(t, st, shopSnapshot(t))
		cs := connect(t, newServer(t, st))
		for _, c := range everyToolCall {
			if res := call(t, cs, c.tool, c.args); res.IsError {
				t.Fatalf("%s before the delete: %s", c.tool, text(t, res))
			}
		}
		if err := st.DeleteRelease(context.Background(), store.ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
			t.Fatal(err)
		}
		for _, c := range everyToolCall {
			wantCode(t, call(t, cs, c.tool, c.args), store.NoRelease)
		}
		// Once a release is current again, the same session is served.
		putCurrent(t, st, shopSnapshot(t))
		if res := call(t, cs, "schema_list_tables", map[string]any{}); len(success[ListTablesOutput](t, res).Tables) != 6 {
			t.Errorf("after a new current release: %s", text(t, res))
		}
	})
}
