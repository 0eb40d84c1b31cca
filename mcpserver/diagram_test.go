package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver/diagram"
	"github.com/hubsnap/hubsnap/store"
)

// diagramSnapshot is a release of shop/dev made for schema_diagram: a
// parent and children whose keys cover every kind of end, a chain for
// distances, a wide table, a self reference and a key into another
// connection.
func diagramSnapshot() *snapshot.Snapshot {
	col := func(name, typ string, nullable bool) snapshot.Column {
		return snapshot.Column{Name: name, Type: typ, Nullable: nullable}
	}
	fk := func(name string, cols []string, ref string, refCols ...string) snapshot.ForeignKey {
		return snapshot.ForeignKey{Name: name, Columns: cols, RefConnection: "main", RefTable: ref, RefColumns: refCols}
	}
	snap := emptySnapshot()
	snap.Connections = append(snap.Connections, snapshot.Connection{Name: "other", Engine: "postgres"})
	wide := snapshot.Table{Name: "wide", Connection: "main", PrimaryKey: []string{"id"}}
	wide.Columns = append(wide.Columns, col("id", "bigint", false))
	for i := range 12 {
		wide.Columns = append(wide.Columns, col(fmt.Sprintf("c%02d", i), "text", true))
	}
	wide.Columns = append(wide.Columns, col("parent_id", "bigint", false))
	wide.ForeignKeys = []snapshot.ForeignKey{fk("", []string{"parent_id"}, "parent", "id")}
	snap.Tables = []snapshot.Table{
		{Name: "parent", Connection: "main", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("name", "text", false), col("boss_id", "bigint", true)},
			ForeignKeys: []snapshot.ForeignKey{fk("parent_boss_fk", []string{"boss_id"}, "parent", "id")}},
		{Name: "child_many", Connection: "main", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("parent_id", "bigint", false)},
			ForeignKeys: []snapshot.ForeignKey{fk("child_many_fk", []string{"parent_id"}, "parent", "id")}},
		{Name: "child_optional", Connection: "main", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("parent_id", "bigint", true)},
			ForeignKeys: []snapshot.ForeignKey{fk("child_optional_fk", []string{"parent_id"}, "parent", "id")}},
		{Name: "child_unique", Connection: "main", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("parent_id", "bigint", true)},
			ForeignKeys: []snapshot.ForeignKey{fk("child_unique_fk", []string{"parent_id"}, "parent", "id")},
			Indexes:     []snapshot.Index{{Name: "child_unique_parent", Columns: []string{"parent_id"}, Unique: true}}},
		{Name: "child_extension", Connection: "main", PrimaryKey: []string{"parent_id"},
			Columns:     []snapshot.Column{col("parent_id", "bigint", false), col("extra", "text", true)},
			ForeignKeys: []snapshot.ForeignKey{fk("child_extension_fk", []string{"parent_id"}, "parent", "id")}},
		{Name: "grandchild", Connection: "main", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("child_id", "bigint", false)},
			ForeignKeys: []snapshot.ForeignKey{fk("", []string{"child_id"}, "child_many", "id")}},
		{Name: "dangling", Connection: "main", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("gone_id", "bigint", false), col("parent_id", "bigint", false)},
			ForeignKeys: []snapshot.ForeignKey{fk("", []string{"gone_id"}, "gone", "id"), fk("", []string{"parent_id"}, "grandchild", "id")}},
		wide,
		{Name: "elsewhere", Connection: "other", PrimaryKey: []string{"id"},
			Columns:     []snapshot.Column{col("id", "bigint", false), col("parent_id", "bigint", false)},
			ForeignKeys: []snapshot.ForeignKey{fk("", []string{"parent_id"}, "parent", "id")}},
	}
	return snap
}

func diagramSession(tb testing.TB) *mcp.ClientSession {
	tb.Helper()
	st := openStore(tb)
	putCurrent(tb, st, diagramSnapshot())
	return connect(tb, newServer(tb, st))
}

// diagramCall calls schema_diagram, which must succeed, and returns its
// structured answer and its text.
func diagramCall(tb testing.TB, cs *mcp.ClientSession, args map[string]any) (diagram.Diagram, string) {
	tb.Helper()
	res := call(tb, cs, "schema_diagram", args)
	if res.IsError {
		tb.Fatalf("schema_diagram %v: %s", args, toolText(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var d diagram.Diagram
	if err := json.Unmarshal(b, &d); err != nil {
		tb.Fatal(err)
	}
	return d, toolText(res)
}

func TestDiagramNeighbourhood(t *testing.T) {
	cs := diagramSession(t)
	names := func(d diagram.Diagram) []string {
		var out []string
		for _, tb := range d.Tables {
			out = append(out, fmt.Sprintf("%s@%d", tb.Table, tb.Distance))
		}
		return out
	}
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		// Both directions, nearest first then by name; the key into
		// another connection and the one to a missing table are no steps.
		{map[string]any{"table": "parent"}, []string{"parent@0", "child_extension@1", "child_many@1",
			"child_optional@1", "child_unique@1", "wide@1"}},
		{map[string]any{"table": "grandchild", "hops": 2}, []string{"grandchild@0", "child_many@1", "dangling@1", "parent@2"}},
		{map[string]any{"table": "main.grandchild", "hops": 3}, []string{"grandchild@0", "child_many@1", "dangling@1",
			"parent@2", "child_extension@3", "child_optional@3", "child_unique@3", "wide@3"}},
		{map[string]any{"table": "elsewhere", "connection": "other", "hops": 3}, []string{"elsewhere@0"}},
	} {
		d, _ := diagramCall(t, cs, c.args)
		if diff := cmp.Diff(c.want, names(d)); diff != "" {
			t.Errorf("%v: tables (-want +got):\n%s", c.args, diff)
		}
		if d.TablesTotal != len(c.want) || d.Truncated {
			t.Errorf("%v: tablesTotal %d, truncated %v; want %d, false", c.args, d.TablesTotal, d.Truncated, len(c.want))
		}
	}
}

// The ends of each relationship come from the data: NOT NULL or not, unique
// or not; the structured edges and the Mermaid text agree.
func TestDiagramEnds(t *testing.T) {
	cs := diagramSession(t)
	d, text := diagramCall(t, cs, map[string]any{"table": "parent"})
	got := map[string][2]bool{}
	for _, e := range d.Edges {
		got[e.From+"."+strings.Join(e.FromColumns, ",")] = [2]bool{e.Nullable, e.Unique}
	}
	want := map[string][2]bool{
		"parent.boss_id":            {true, false},
		"child_many.parent_id":      {false, false},
		"child_optional.parent_id":  {true, false},
		"child_unique.parent_id":    {true, true},
		"child_extension.parent_id": {false, true},
		"wide.parent_id":            {false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edges' nullable, unique (-want +got):\n%s", diff)
	}
	for _, line := range []string{
		`t0 |o--o{ t0 : "parent_boss_fk"`,
		`t0 ||--o| t1 : "child_extension_fk"`,
		`t0 ||--o{ t2 : "child_many_fk"`,
		`t0 |o--o{ t3 : "child_optional_fk"`,
		`t0 |o--o| t4 : "child_unique_fk"`,
		`t0 ||--o{ t5 : "parent_id"`,
	} {
		if !strings.Contains(text, "    "+line+"\n") {
			t.Errorf("the Mermaid text has no line %q:\n%s", line, text)
		}
	}
}

// A table shows its key columns, then its first 8 others, and says how
// many more it has.
func TestDiagramColumns(t *testing.T) {
	cs := diagramSession(t)
	d, text := diagramCall(t, cs, map[string]any{"table": "wide"})
	w := d.Tables[0]
	var got []string
	for _, c := range w.Columns {
		got = append(got, strings.TrimSuffix(c.Name+" "+c.Key, " "))
	}
	want := []string{"id PK", "parent_id FK", "c00", "c01", "c02", "c03", "c04", "c05", "c06", "c07"}
	if diff := cmp.Diff(want, got); diff != "" || w.ColumnsTotal != 14 {
		t.Errorf("columns (-want +got):\n%s\ncolumnsTotal %d, want 14", diff, w.ColumnsTotal)
	}
	for _, line := range []string{"bigint id PK", "bigint parent_id FK", "text c07", `… more "4 more columns"`} {
		if !strings.Contains(text, "        "+line+"\n") {
			t.Errorf("the Mermaid text has no line %q:\n%s", line, text)
		}
	}
	if p := d.Tables[1]; p.Table != "parent" || p.ColumnsTotal != 0 || len(p.Columns) != 3 || p.Columns[1].Key != "FK" {
		t.Errorf("parent = %+v, want its 3 columns, boss_id an FK, and no columnsTotal", p)
	}
}

// A centre referenced by more than 40 tables: the nearest 40 by name, with
// the count of all.
func TestDiagramTruncated(t *testing.T) {
	st := openStore(t)
	snap := emptySnapshot()
	snap.Tables = append(snap.Tables, snapshot.Table{Name: "hub", Connection: "main", PrimaryKey: []string{"id"},
		Columns: []snapshot.Column{{Name: "id", Type: "int"}}})
	for i := range 60 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: fmt.Sprintf("spoke_%02d", 59-i), Connection: "main",
			Columns: []snapshot.Column{{Name: "hub_id", Type: "int"}},
			ForeignKeys: []snapshot.ForeignKey{{Columns: []string{"hub_id"}, RefConnection: "main", RefTable: "hub",
				RefColumns: []string{"id"}}}})
	}
	putCurrent(t, st, snap)
	d, text := diagramCall(t, connect(t, newServer(t, st)), map[string]any{"table": "hub"})
	if len(d.Tables) != 40 || d.TablesTotal != 61 || !d.Truncated || len(d.Edges) != 39 {
		t.Fatalf("%d tables of %d, truncated %v, %d edges; want 40 of 61, true, 39", len(d.Tables), d.TablesTotal, d.Truncated, len(d.Edges))
	}
	if d.Tables[1].Table != "spoke_00" || d.Tables[39].Table != "spoke_38" {
		t.Errorf("tables %s ... %s, want spoke_00 ... spoke_38", d.Tables[1].Table, d.Tables[39].Table)
	}
	if n := strings.Count(text, "--"); n != 39 {
		t.Errorf("%d relationships in the Mermaid text, want 39", n)
	}
}

func TestDiagramErrors(t *testing.T) {
	cs := diagramSession(t)
	for _, c := range []struct {
		args map[string]any
		code store.Code
	}{
		{map[string]any{"table": "nope"}, store.NotFound},
		{map[string]any{"table": "parent", "connection": "other"}, store.NotFound},
		{map[string]any{"table": "parent", "hops": 0}, store.InvalidArgument},
		{map[string]any{"table": "parent", "hops": 4}, store.InvalidArgument},
		{map[string]any{"table": ""}, store.InvalidArgument},
	} {
		wantCode(t, call(t, cs, "schema_diagram", c.args), c.code)
	}
	st := openStore(t)
	wantCode(t, call(t, connect(t, newServer(t, st)), "schema_diagram", map[string]any{"table": "parent"}), store.NoRelease)
}

// The tool links its app in both forms, and the server declares the MCP
// Apps extension.
func TestDiagramAppMeta(t *testing.T) {
	cs := shopSession(t)
	tool := listTools(t, cs)["schema_diagram"]
	b, _ := json.Marshal(tool.Meta)
	if want := `{"ui":{"resourceUri":"ui://hubsnap/diagram"},"ui/resourceUri":"ui://hubsnap/diagram"}`; string(b) != want {
		t.Errorf("_meta = %s, want %s", b, want)
	}
	ext := cs.InitializeResult().Capabilities.Extensions["io.modelcontextprotocol/ui"]
	b, _ = json.Marshal(ext)
	if want := `{"mimeTypes":["text/html;profile=mcp-app"]}`; string(b) != want {
		t.Errorf("extension settings = %s, want %s", b, want)
	}
}

// What a model reads of tools/list (names, descriptions and input
// schemas) stays within 8 KB, with every tool.
func TestToolsListModelVisibleSize(t *testing.T) {
	res, err := shopSession(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tool := range res.Tools {
		b, _ := json.Marshal(map[string]any{"name": tool.Name, "description": tool.Description, "inputSchema": tool.InputSchema})
		total += len(b)
	}
	t.Logf("model-visible tools/list: %d bytes for %d tools", total, len(res.Tools))
	if total > 8192 {
		t.Errorf("model-visible tools/list is %d bytes, over 8 KB", total)
	}
}

// toolText is the text of a result's one text block.
func toolText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// The app's page is a resource of the MCP Apps MIME type: the embedded,
// self-contained document, under 1 MiB, that loads nothing.
func TestDiagramAppResource(t *testing.T) {
	cs := shopSession(t)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://hubsnap/diagram"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contents[0]
	if c.MIMEType != "text/html;profile=mcp-app" || c.Text != diagram.Page() {
		t.Fatalf("ui://hubsnap/diagram: MIME type %q, %d bytes; want the app page", c.MIMEType, len(c.Text))
	}
	if len(c.Text) >= 1<<20 || !strings.HasPrefix(c.Text, "<!doctype html>") {
		t.Errorf("the page is %d bytes (want < 1 MiB) and starts %.30q", len(c.Text), c.Text)
	}
	style, _, _ := strings.Cut(c.Text, "</style>")
	if strings.Contains(style, "url(") || strings.Contains(style, "@import") {
		t.Errorf("the page's style loads something")
	}
	for _, bad := range []string{"<script src", "<link", "<img", "<iframe", "eval(", "new Function", "WebAssembly"} {
		if strings.Contains(c.Text, bad) {
			t.Errorf("the page holds %q: it must load nothing and run no eval or WebAssembly", bad)
		}
	}
}

// BenchmarkLargeDiagramTool is one schema_diagram call on the
// 10,000-table release: billing_users, which the base tables of its area
// point at, with 1, 2 and 3 hops (2 and 3 reach more than 40 tables).
func BenchmarkLargeDiagramTool(b *testing.B) {
	cs := largeSession(b)
	for hops := 1; hops <= store.MaxDiagramHops; hops++ {
		b.Run(fmt.Sprintf("hops=%d", hops), func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "schema_diagram", Arguments: map[string]any{"table": "billing_users", "hops": hops}}
			d, _ := diagramCall(b, cs, params.Arguments.(map[string]any))
			b.ReportMetric(float64(d.TablesTotal), "tables")
			b.ReportAllocs()
			for b.Loop() {
				callOK(b, cs, params)
			}
		})
	}
}

// Every diagram of the fixtures decodes strictly into diagram.Diagram
// and validates against the output schema the tool advertises; the JSON
// that SQL writes is the one the Go type marshals to.
func TestDiagramContract(t *testing.T) {
	for _, snap := range []*snapshot.Snapshot{diagramSnapshot(), shopSnapshot(t)} {
		st := openStore(t)
		putCurrent(t, st, snap)
		srv := newServer(t, st)
		schema := outputSchemas(t, srv)["schema_diagram"]
		for _, tb := range snap.Tables {
			for hops := 1; hops <= store.MaxDiagramHops; hops++ {
				answer, _, err := srv.diagram(context.Background(), DiagramInput{Table: TableName(tb.Name), Connection: Name(tb.Connection), Hops: hops})
				if err != nil {
					t.Fatalf("%s.%s: %v", tb.Connection, tb.Name, err)
				}
				var d diagram.Diagram
				if err := json.Unmarshal(answer, &d); err != nil {
					t.Fatal(err)
				}
				if err := contractError(schema, answer, new(diagram.Diagram), d); err != nil {
					t.Fatalf("%s.%s, %d hops: %v", tb.Connection, tb.Name, hops, err)
				}
			}
		}
	}
}
