package mcpserver

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenDir holds this package's golden transcripts.
var goldenDir = filepath.Join("..", "testdata", "golden", "mcpserver")

// goldenCalls are the transcripts kept under testdata/golden/mcpserver: one
// typical call of every tool and the answers that are easy to get wrong.
var goldenCalls = []struct {
	file string
	tool string
	args any
}{
	{"schema_list_tables", "schema_list_tables", map[string]any{}},
	{"schema_list_tables_connection", "schema_list_tables", map[string]any{"connection": "analytics"}},
	{"schema_get_table_posts", "schema_get_table", map[string]any{"table": "posts"}},
	{"schema_get_table_items", "schema_get_table", map[string]any{"table": "items"}},
	{"schema_get_table_users_ambiguous", "schema_get_table", map[string]any{"table": "users"}},
	{"schema_get_table_main_users", "schema_get_table", map[string]any{"table": "users", "connection": "main"}},
	{"schema_get_table_analytics_users", "schema_get_table", map[string]any{"table": "analytics.users"}},
	{"schema_get_table_order_lines", "schema_get_table", map[string]any{"table": "order_lines"}},
	{"schema_get_table_not_found", "schema_get_table", map[string]any{"table": "invoices"}},
	{"schema_get_table_invalid_type", "schema_get_table", map[string]any{"table": 7}},
	{"schema_get_table_missing_table", "schema_get_table", map[string]any{}},
	{"schema_get_table_unknown_argument", "schema_get_table", map[string]any{"table": "posts", "evil": 1}},
	{"logic_list", "logic_list", map[string]any{}},
	{"logic_get_purchase_item", "logic_get", map[string]any{"name": "purchase_item"}},
	{"logic_get_admin_users", "logic_get", map[string]any{"name": "logics/admin/users"}},
	{"logic_get_items_search", "logic_get", map[string]any{"name": "items/search"}},
	{"logic_get_not_found", "logic_get", map[string]any{"name": "refund_item"}},
	{"logic_get_invalid_name", "logic_get", map[string]any{"name": "../admin/users"}},
	{"release_info", "release_info", map[string]any{}},
	{"release_check", "release_check", map[string]any{}},
	{"release_check_missing_comment", "release_check", map[string]any{"code": "MISSING_COMMENT"}},
	{"release_check_unknown_code", "release_check", map[string]any{"code": "NO_INDEX"}},
	{"schema_search_display_name", "schema_search", map[string]any{"query": "displayName"}},
	{"schema_search_user", "schema_search", map[string]any{"query": "user"}},
	{"schema_search_logic_kind", "schema_search", map[string]any{"query": "user", "kinds": []string{"logic"}}},
	{"schema_search_limit", "schema_search", map[string]any{"query": "id", "limit": 3}},
	{"schema_search_query_syntax", "schema_search", map[string]any{"query": `" OR * NEAR(`}},
	{"schema_search_unknown_kind", "schema_search", map[string]any{"query": "user", "kinds": []string{"view"}}},
	{"schema_search_empty_query", "schema_search", map[string]any{"query": " "}},
	{"schema_join_path_posts_items", "schema_join_path", map[string]any{"from": "posts", "to": "items"}},
	{"schema_join_path_qualified", "schema_join_path", map[string]any{"from": "order_lines", "to": "main.users"}},
	{"schema_join_path_ambiguous", "schema_join_path", map[string]any{"from": "users", "to": "posts"}},
	{"schema_join_path_not_found", "schema_join_path", map[string]any{"from": "posts", "to": "invoices"}},
	{"schema_join_path_across_connections", "schema_join_path", map[string]any{"from": "analytics.users", "to": "main.users"}},
	{"schema_join_path_max_hops", "schema_join_path", map[string]any{"from": "posts", "to": "items", "maxHops": 2}},
	{"schema_join_path_invalid_max_hops", "schema_join_path", map[string]any{"from": "posts", "to": "items", "maxHops": 7}},
	{"schema_diff_no_earlier_release", "schema_diff", map[string]any{}},
	{"schema_diff_same_release", "schema_diff", map[string]any{"from": "rel_42"}},
	{"schema_diff_not_cached", "schema_diff", map[string]any{"from": "rel_9"}},
	{"schema_diagram_posts", "schema_diagram", map[string]any{"table": "posts"}},
	{"schema_diagram_users_hops_3", "schema_diagram", map[string]any{"table": "users", "connection": "main", "hops": 3}},
	{"schema_diagram_ambiguous", "schema_diagram", map[string]any{"table": "users"}},
	{"schema_diagram_not_found", "schema_diagram", map[string]any{"table": "invoices"}},
	{"schema_diagram_invalid_hops", "schema_diagram", map[string]any{"table": "posts", "hops": 4}},
}

// transcript is one golden file: the request and the whole result.
type transcript struct {
	Request struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments any    `json:"arguments"`
		} `json:"params"`
	} `json:"request"`
	Result struct {
		Content           []goldenContent `json:"content"`
		StructuredContent any             `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError"`
	} `json:"result"`
}

// goldenContent is a content item of a golden transcript. A text that is
// a JSON answer is kept as JSON, indented with the file, in the order of
// its members, so that a change to an answer reads as a diff of lines
// rather than of one long escaped string; any other text is kept as text.
// Indenting loses nothing: an answer is compact JSON (newTranscript
// checks), so the text is the JSON with its whitespace taken out.
type goldenContent struct {
	Type string          `json:"type"`
	Text string          `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
}

// newTranscript is the golden transcript of a call of tool with args that
// returned res.
func newTranscript(tb testing.TB, tool string, args any, res *mcp.CallToolResult) transcript {
	tb.Helper()
	var tr transcript
	tr.Request.Method = "tools/call"
	tr.Request.Params.Name, tr.Request.Params.Arguments = tool, args
	for _, c := range res.Content {
		text, ok := c.(*mcp.TextContent)
		if !ok {
			tb.Fatalf("%s: content %T, want *mcp.TextContent", tool, c)
		}
		tr.Result.Content = append(tr.Result.Content, textContent(tb, text.Text))
	}
	tr.Result.StructuredContent, tr.Result.IsError = res.StructuredContent, res.IsError
	return tr
}

// textContent keeps text as JSON when it is a compact JSON object or
// array, else as text.
func textContent(tb testing.TB, text string) goldenContent {
	tb.Helper()
	if !strings.HasPrefix(text, "{") && !strings.HasPrefix(text, "[") || !json.Valid([]byte(text)) {
		return goldenContent{Type: "text", Text: text}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil {
		tb.Fatal(err)
	}
	if compact.String() != text {
		tb.Fatalf("the answer is JSON but not compact: %s", text)
	}
	return goldenContent{Type: "text", JSON: json.RawMessage(text)}
}

func TestGoldenTranscripts(t *testing.T) {
	cs := shopSession(t)
	for _, g := range goldenCalls {
		t.Run(g.file, func(t *testing.T) {
			res := call(t, cs, g.tool, g.args)
			checkGolden(t, g.file+".json", newTranscript(t, g.tool, g.args, res))
		})
	}
}

// tools/list, whole: names, titles, descriptions, annotations and both
// schemas, so that any change to what a client sees shows as a diff.
func TestGoldenToolsList(t *testing.T) {
	cs := shopSession(t)
	tools := listTools(t, cs)
	var list []*mcp.Tool
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		list = append(list, tools[name])
	}
	checkGolden(t, "tools_list.json", map[string]any{"tools": list})
}

// The tools' descriptions on their own, as plain text, so that their
// wording (what an assistant reads to choose a tool) is easy to review.
func TestGoldenToolDescriptions(t *testing.T) {
	tools := listTools(t, shopSession(t))
	var sb strings.Builder
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		fmt.Fprintf(&sb, "## %s\n\n%s\n\n", name, tools[name].Description)
	}
	checkGoldenText(t, "tool_descriptions.md", sb.String())
}

// initialize: server info, instructions and capabilities.
func TestGoldenInitialize(t *testing.T) {
	cs := shopSession(t)
	checkGolden(t, "initialize.json", cs.InitializeResult())
}

// checkGolden compares v, as indented JSON, with the golden file name, or
// rewrites the file under -update.
func checkGolden(tb testing.TB, name string, v any) {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatalf("encode %s: %v", name, err)
	}
	checkGoldenText(tb, name, buf.String())
}

// checkGoldenText compares text with the golden file name, or rewrites the
// file under -update.
func checkGoldenText(tb testing.TB, name, text string) {
	tb.Helper()
	got := []byte(text)
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./mcpserver -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		tb.Errorf("%s differs (-golden +got); run go test ./mcpserver -update if the change is intended:\n%s",
			path, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}

// Every golden file is written by a test: none is left over from a call
// that was removed.
func TestGoldenFilesAreAllUsed(t *testing.T) {
	if *update {
		t.Skip("rewriting")
	}
	used := map[string]bool{"tools_list.json": true, "initialize.json": true, "tool_descriptions.md": true}
	for _, g := range goldenCalls {
		used[g.file+".json"] = true
	}
	for _, g := range demoGoldenCalls {
		used[g.file+".json"] = true
	}
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !used[e.Name()] {
			t.Errorf("%s is not written by any test; delete it", filepath.Join(goldenDir, e.Name()))
		}
	}
}
