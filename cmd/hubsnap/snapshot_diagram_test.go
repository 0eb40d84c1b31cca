package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/mcpserver/diagram"
)

// goldenDiagramText is the text of schema_diagram's golden answer file.
func goldenDiagramText(tb testing.TB, file string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "mcpserver", file))
	if err != nil {
		tb.Fatal(err)
	}
	var tr struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal(b, &tr); err != nil || len(tr.Result.Content) != 1 {
		tb.Fatalf("%s: %v", file, err)
	}
	return tr.Result.Content[0].Text
}

// The Mermaid text is the tool's, character for character.
func TestSnapshotDiagramMermaid(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")
	c.ok("snapshot", "import", shopPath)
	for _, k := range []struct {
		golden string
		args   []string
	}{
		{"schema_diagram_posts.json", []string{"posts"}},
		{"schema_diagram_users_hops_3.json", []string{"users", "--connection", "main", "--hops", "3"}},
		{"schema_diagram_users_hops_3.json", []string{"main.users", "--hops", "3", "--format", "mermaid"}},
	} {
		r := c.ok(append([]string{"snapshot", "diagram"}, k.args...)...)
		if want := goldenDiagramText(t, k.golden); r.stdout != want {
			t.Errorf("snapshot diagram %q:\n%s\nwant the tool's text:\n%s", k.args, r.stdout, want)
		}
	}
}

// The SVG, drawn by the app's own code in goja: well-formed, a box per
// table, an edge per foreign key, in the theme asked for; and the page
// standalone, with the data inlined.
func TestSnapshotDiagramSVGAndHTML(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")
	c.ok("snapshot", "import", shopPath)
	for _, theme := range []string{"light", "dark"} {
		r := c.ok("snapshot", "diagram", "main.users", "--hops", "2", "--format", "svg", "--theme", theme)
		dec := xml.NewDecoder(strings.NewReader(r.stdout))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: not well-formed: %v", theme, err)
			}
		}
		for what, want := range map[string]int{`<g class="table`: 4, `<g class="edge"`: 3, `data-theme="` + theme + `"`: 1,
			`data-table="users"`: 1, `data-end="o{"`: 3} {
			if got := strings.Count(r.stdout, what); got != want {
				t.Errorf("%s: %d × %s, want %d", theme, got, what, want)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "posts.html")
	if r := c.ok("snapshot", "diagram", "posts", "--format", "html", "-o", out); r.stdout != "" {
		t.Errorf("with -o, stdout = %q", r.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	start := strings.Index(page, `<script id="hubsnap-data" type="application/json">`)
	end := strings.Index(page[max(start, 0):], "</script>")
	if start < 0 || end < 0 {
		t.Fatalf("no inlined data in the page")
	}
	data := page[start+len(`<script id="hubsnap-data" type="application/json">`) : start+end]
	var d diagram.Diagram
	if err := json.Unmarshal([]byte(data), &d); err != nil || d.Center != "posts" || len(d.Tables) != 2 {
		t.Errorf("inlined data %s: %v", data, err)
	}
	if strings.Replace(page, page[start:start+end+len("</script>")], "<!--DATA-->", 1) != diagram.Page() {
		t.Error("the standalone page is not the app's page with the data")
	}
}

// --release draws a cached release that is not current; errors exit as
// usage errors (2) or failures (1).
func TestSnapshotDiagramReleaseAndErrors(t *testing.T) {
	t.Parallel()
	c := demoCLI(t)
	if r := c.ok("snapshot", "diagram", "carts", "--release", "rel_41"); !strings.Contains(r.stdout, `t0["carts"]`) {
		t.Errorf("rel_41's carts:\n%s", r.stdout)
	}
	for _, k := range []struct {
		code int
		args []string
		msg  string
	}{
		{1, []string{"carts"}, `table "carts" not found`},
		{1, []string{"posts", "--release", "rel_9"}, `release "rel_9" of project "shop" is not in the cache`},
		{2, []string{"posts", "--hops", "4"}, "--hops must be between 1 and 3"},
		{2, []string{"posts", "--format", "png"}, "--format must be mermaid, svg or html"},
		{2, []string{"posts", "--theme", "blue"}, "--theme must be light or dark"},
		{2, []string{}, "accepts 1 arg"},
	} {
		r := c.fails(k.code, append([]string{"snapshot", "diagram"}, k.args...)...)
		if !strings.Contains(r.msg(), k.msg) {
			t.Errorf("snapshot diagram %q: %q, want it to say %q", k.args, r.msg(), k.msg)
		}
	}
}
