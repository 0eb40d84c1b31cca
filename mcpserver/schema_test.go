package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// listTools returns the tools srv advertises, by name.
func listTools(tb testing.TB, cs *mcp.ClientSession) map[string]*mcp.Tool {
	tb.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		tb.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// The advertised schemas are the ones inferred from the handlers' Go types:
// one source, no hand-written twin (docs/tools.md). The output schema is
// advertised through leanOutput.
func TestAdvertisedSchemasComeFromHandlerTypes(t *testing.T) {
	tools := listTools(t, shopSession(t))
	want := inferredSchemas()
	for name, s := range want {
		want[name] = [2]*jsonschema.Schema{s[0], leanOutput(s[1])}
	}
	if got := slices.Sorted(maps.Keys(tools)); !slices.Equal(got, toolNames) {
		t.Errorf("tools = %v, want %v", got, toolNames)
	}
	for name, schemas := range want {
		tool := tools[name]
		if tool == nil {
			t.Errorf("%s is not advertised", name)
			continue
		}
		for i, advertised := range []any{tool.InputSchema, tool.OutputSchema} {
			which := [2]string{"inputSchema", "outputSchema"}[i]
			got, err := json.Marshal(advertised)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := json.Marshal(schemas[i])
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, wantJSON) {
				t.Errorf("%s %s differs from schemaFor:\ngot  %s\nwant %s", name, which, got, wantJSON)
			}
		}
	}
}

// Schemas use no type arrays (some hosts reject them; strict validators
// warn), close their objects to unknown arguments, and keep a root of type
// object. The nullable fields, schema_get_table's primaryKey and
// logic_get's analysis.result, are an anyOf of their value and null.
func TestAdvertisedSchemasArePlain(t *testing.T) {
	for name, tool := range listTools(t, shopSession(t)) {
		for which, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			b, _ := json.Marshal(s)
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc["type"] != "object" {
				t.Errorf("%s %s: root type = %v, want object", name, which, doc["type"])
			}
			if which == "inputSchema" && doc["additionalProperties"] != false {
				t.Errorf("%s inputSchema: additionalProperties = %v, want false", name, doc["additionalProperties"])
			}
			walkSchema(doc, "", func(path string, node map[string]any) {
				if types, ok := node["type"].([]any); ok {
					t.Errorf("%s %s%s: type %v is an array", name, which, path, types)
				}
				if _, ok := node["anyOf"]; ok && path != "/properties/primaryKey" && path != "/properties/analysis/properties/result" {
					t.Errorf("%s %s%s: anyOf where only primaryKey and analysis.result may be null", name, which, path)
				}
			})
		}
	}
}

func walkSchema(node map[string]any, path string, fn func(string, map[string]any)) {
	fn(path, node)
	if items, ok := node["items"].(map[string]any); ok {
		walkSchema(items, path+"/items", fn)
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				walkSchema(m, path+"/properties/"+k, fn)
			}
		}
	}
	if alts, ok := node["anyOf"].([]any); ok {
		for i, v := range alts {
			if m, ok := v.(map[string]any); ok {
				walkSchema(m, fmt.Sprintf("%s/anyOf/%d", path, i), fn)
			}
		}
	}
}

// Required input fields are exactly the ones a call cannot do without.
func TestInputSchemasRequire(t *testing.T) {
	tools := listTools(t, shopSession(t))
	want := map[string][]string{
		"schema_list_tables": nil,
		"schema_get_table":   {"table"},
		"logic_list":         nil,
		"logic_get":          {"name"},
		"release_info":       nil,
		"schema_join_path":   {"from", "to"},
		"schema_diff":        nil,
		"schema_diagram":     {"table"},
	}
	for name, req := range want {
		b, _ := json.Marshal(tools[name].InputSchema)
		var s struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Required, req) {
			t.Errorf("%s requires %v, want %v", name, s.Required, req)
		}
	}
}

// shapeSnapshot is the shop fixture plus a table without a primary key and
// a table with a two-column foreign key (to order_lines).
func shapeSnapshot(tb testing.TB) *snapshot.Snapshot {
	snap := shopSnapshot(tb)
	snap.Tables = append(snap.Tables,
		snapshot.Table{Name: "audit_log", Connection: "main",
			Columns: []snapshot.Column{{Name: "at", Type: "timestamp"}, {Name: "what", Type: "string", Nullable: true}}},
		snapshot.Table{Name: "shipments", Connection: "main", Comment: "Lines shipped",
			Columns: []snapshot.Column{{Name: "id", Type: "string"}, {Name: "order_id", Type: "string"},
				{Name: "line_no", Type: "integer"}},
			PrimaryKey: []string{"id"},
			ForeignKeys: []snapshot.ForeignKey{{Name: "shipments_line_fk", Columns: []string{"order_id", "line_no"},
				RefConnection: "main", RefTable: "order_lines", RefColumns: []string{"order_id", "line_no"}}}},
	)
	return snap
}

// getRaw calls schema_get_table and returns the answer as generic JSON.
func getRaw(tb testing.TB, cs *mcp.ClientSession, args map[string]any) map[string]any {
	tb.Helper()
	return raw(tb, call(tb, cs, "schema_get_table", args))
}

// docs/tools.md: primaryKey.columns always; name/type only for a one-column key;
// "primaryKey": null without a key.
func TestGetTablePrimaryKeyShape(t *testing.T) {
	cs := sessionWith(t, shapeSnapshot(t))

	single := getRaw(t, cs, map[string]any{"table": "posts"})["primaryKey"]
	want := map[string]any{"name": "id", "type": "string",
		"columns": []any{map[string]any{"name": "id", "type": "string"}}}
	if diff := cmp.Diff(want, single); diff != "" {
		t.Errorf("posts primaryKey (-want +got):\n%s", diff)
	}

	composite := getRaw(t, cs, map[string]any{"table": "order_lines"})["primaryKey"]
	want = map[string]any{"columns": []any{
		map[string]any{"name": "order_id", "type": "string"},
		map[string]any{"name": "line_no", "type": "integer"},
	}}
	if diff := cmp.Diff(want, composite); diff != "" {
		t.Errorf("order_lines primaryKey (-want +got):\n%s", diff)
	}

	res := call(t, cs, "schema_get_table", map[string]any{"table": "audit_log"})
	doc := raw(t, res)
	pk, present := doc["primaryKey"]
	if !present || pk != nil {
		t.Errorf("audit_log primaryKey = %#v (present %v), want null", pk, present)
	}
	if !strings.Contains(text(t, res), `"primaryKey":null`) {
		t.Errorf("audit_log text lacks \"primaryKey\":null: %s", text(t, res))
	}
}

// docs/tools.md: every foreign key has columns and references.columns;
// column/references.column only when it has one column.
func TestGetTableForeignKeyShape(t *testing.T) {
	cs := sessionWith(t, shapeSnapshot(t))

	fks := getRaw(t, cs, map[string]any{"table": "posts"})["foreignKeys"]
	want := []any{map[string]any{"name": "posts_author_fk", "column": "author_id", "columns": []any{"author_id"},
		"references": map[string]any{"table": "users", "column": "id", "columns": []any{"id"}}, "onDelete": "cascade"}}
	if diff := cmp.Diff(want, fks); diff != "" {
		t.Errorf("posts foreignKeys (-want +got):\n%s", diff)
	}

	fks = getRaw(t, cs, map[string]any{"table": "shipments"})["foreignKeys"]
	want = []any{map[string]any{"name": "shipments_line_fk", "columns": []any{"order_id", "line_no"},
		"references": map[string]any{"table": "order_lines", "columns": []any{"order_id", "line_no"}}}}
	if diff := cmp.Diff(want, fks); diff != "" {
		t.Errorf("shipments foreignKeys (-want +got):\n%s", diff)
	}

	// No foreign keys: "foreignKeys": [] (the MCP-002 users example).
	if got := getRaw(t, cs, map[string]any{"table": "main.users"})["foreignKeys"]; !cmp.Equal(got, []any{}) {
		t.Errorf("main.users foreignKeys = %#v, want []", got)
	}

	// An unnamed foreign key leaves out name.
	fks = getRaw(t, cs, map[string]any{"table": "order_lines"})["foreignKeys"]
	want = []any{map[string]any{"column": "item_id", "columns": []any{"item_id"},
		"references": map[string]any{"table": "items", "column": "id", "columns": []any{"id"}}, "onDelete": "restrict"}}
	if diff := cmp.Diff(want, fks); diff != "" {
		t.Errorf("order_lines foreignKeys (-want +got):\n%s", diff)
	}
}

// docs/tools.md: comment, column comment/default/enum, indexes and referencedBy
// appear when present and are left out when empty.
func TestGetTableEmptyExtrasAreLeftOut(t *testing.T) {
	cs := sessionWith(t, shapeSnapshot(t))

	// items: no comment, no indexes; referenced by purchases and order_lines.
	items := getRaw(t, cs, map[string]any{"table": "items"})
	for _, k := range []string{"comment", "indexes"} {
		if v, ok := items[k]; ok {
			t.Errorf("items has %q = %#v; want it left out", k, v)
		}
	}
	if _, ok := items["referencedBy"]; !ok {
		t.Errorf("items lacks referencedBy")
	}
	cols, _ := items["columns"].([]any)
	wantCols := []any{
		map[string]any{"name": "id", "type": "string", "nullable": false},
		map[string]any{"name": "name", "type": "string", "nullable": false},
		map[string]any{"name": "price_cents", "type": "integer", "nullable": false, "default": "0"},
	}
	if diff := cmp.Diff(wantCols, cols); diff != "" {
		t.Errorf("items columns (-want +got):\n%s", diff)
	}

	// posts: nothing points at it; it has a comment, indexes, a column
	// comment, a default and an enum.
	posts := getRaw(t, cs, map[string]any{"table": "posts"})
	if v, ok := posts["referencedBy"]; ok {
		t.Errorf("posts has referencedBy = %#v; want it left out", v)
	}
	if posts["comment"] != "Blog posts" {
		t.Errorf("posts comment = %#v", posts["comment"])
	}
	wantIdx := []any{map[string]any{"name": "posts_author_idx", "columns": []any{"author_id"}, "unique": false}}
	if diff := cmp.Diff(wantIdx, posts["indexes"]); diff != "" {
		t.Errorf("posts indexes (-want +got):\n%s", diff)
	}
	wantCols = []any{
		map[string]any{"name": "id", "type": "string", "nullable": false},
		map[string]any{"name": "author_id", "type": "string", "nullable": false, "comment": "writer"},
		map[string]any{"name": "title", "type": "string", "nullable": false},
		map[string]any{"name": "status", "type": "string", "nullable": false, "default": "'draft'",
			"enum": []any{"draft", "published"}},
	}
	if diff := cmp.Diff(wantCols, posts["columns"]); diff != "" {
		t.Errorf("posts columns (-want +got):\n%s", diff)
	}

	// audit_log: no comment, key, foreign keys, indexes or references.
	audit := getRaw(t, cs, map[string]any{"table": "audit_log"})
	if got, want := keys(audit), []string{"columns", "connection", "foreignKeys", "name", "primaryKey"}; !slices.Equal(got, want) {
		t.Errorf("audit_log keys = %v, want %v", got, want)
	}
}

// referencedBy of main.users lists the foreign keys of posts, purchases and
// analytics.users that point at it, and of order_lines the composite one.
func TestGetTableReferencedBy(t *testing.T) {
	cs := sessionWith(t, shapeSnapshot(t))

	users := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": "main.users"}))
	var from []string
	for _, r := range users.ReferencedBy {
		conn := r.Connection
		if conn == "" { // the table's own
			conn = users.Connection
		}
		from = append(from, conn+"."+r.Table)
	}
	for _, want := range []string{"main.posts", "main.purchases"} {
		if !slices.Contains(from, want) {
			t.Errorf("main.users referencedBy = %v, lacks %s", from, want)
		}
	}
	want := []answer.Reference{
		// The connection only when it is not the table's own.
		{Table: "users", Connection: "analytics", Name: "rollup_user_fk", Columns: []string{"user_id"}, ReferencedColumns: []string{"id"}},
		{Table: "posts", Name: "posts_author_fk", Columns: []string{"author_id"}, ReferencedColumns: []string{"id"}},
		{Table: "purchases", Name: "purchases_user_fk", Columns: []string{"user_id"}, ReferencedColumns: []string{"id"}},
	}
	if diff := cmp.Diff(want, users.ReferencedBy); diff != "" {
		t.Errorf("main.users referencedBy (-want +got):\n%s", diff)
	}

	// analytics.users is referenced by nobody, though a table of the same
	// name in main is.
	if v, ok := getRaw(t, cs, map[string]any{"table": "analytics.users"})["referencedBy"]; ok {
		t.Errorf("analytics.users referencedBy = %#v, want it left out", v)
	}

	lines := getRaw(t, cs, map[string]any{"table": "order_lines"})["referencedBy"]
	wantLines := []any{map[string]any{"table": "shipments", "name": "shipments_line_fk",
		"columns": []any{"order_id", "line_no"}, "referencedColumns": []any{"order_id", "line_no"}}}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("order_lines referencedBy (-want +got):\n%s", diff)
	}
}

// A bare name in several connections is AMBIGUOUS and the message lists the
// qualified names; connection.table and the connection argument resolve it.
func TestGetTableAmbiguousAndQualified(t *testing.T) {
	cs := shopSession(t)
	msg := wantCode(t, call(t, cs, "schema_get_table", map[string]any{"table": "users"}), store.Ambiguous)
	for _, q := range []string{"main.users", "analytics.users"} {
		if !strings.Contains(msg, q) {
			t.Errorf("AMBIGUOUS message %q does not list %s", msg, q)
		}
	}
	for _, args := range []map[string]any{
		{"table": "analytics.users"},
		{"table": "users", "connection": "analytics"},
	} {
		got := success[answer.Table](t, call(t, cs, "schema_get_table", args))
		if got.Connection != "analytics" || got.Name != "users" || len(got.Columns) != 3 {
			t.Errorf("%s: got %s.%s with %d columns, want analytics.users with 3", short(args), got.Connection, got.Name, len(got.Columns))
		}
	}
	got := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": "main.users"}))
	if got.Connection != "main" || len(got.Columns) != 5 {
		t.Errorf("main.users: got %s.%s with %d columns", got.Connection, got.Name, len(got.Columns))
	}
}

// A table whose own name holds a dot is found by that name before
// connection.table is tried.
func TestGetTableDottedName(t *testing.T) {
	snap := shopSnapshot(t)
	snap.Tables = append(snap.Tables, snapshot.Table{Name: "main.users", Connection: "analytics",
		Columns: []snapshot.Column{{Name: "x", Type: "string"}}})
	cs := sessionWith(t, snap)
	got := success[answer.Table](t, call(t, cs, "schema_get_table", map[string]any{"table": "main.users"}))
	if got.Connection != "analytics" || got.Name != "main.users" {
		t.Errorf("got %s / %s, want the table named main.users in analytics", got.Connection, got.Name)
	}
}

// release_info describes the current release with its counts.
func TestReleaseInfo(t *testing.T) {
	got := success[ReleaseInfo](t, call(t, shopSession(t), "release_info", map[string]any{}))
	want := ReleaseInfo{ID: "rel_42", Project: "shop", Environment: "dev", Version: 42,
		CreatedAt: "2026-11-01T10:00:00Z", SyncedAt: fixedOrigin.SyncedAt, Tables: 6, Logics: 4,
		SchemaProblems: 4, LogicProblems: new(1), OtherReleases: []answer.ReleaseRef{}} // purchase_item's MISSING_COLUMN
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("release_info (-want +got):\n%s", diff)
	}
}
