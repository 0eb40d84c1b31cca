package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/store/answer"
)

// demoCLI is a cli whose cache holds the demo's two releases, rel_42
// current.
func demoCLI(tb testing.TB) *cli {
	tb.Helper()
	c := newCLI(tb).with("HUBSNAP_PROJECT", "shop")
	for _, name := range []string{"demo_release_41.json", "demo_release.json"} {
		c.ok("snapshot", "import", name)
	}
	return c
}

// The report of the demo's two releases, whole.
const demoDiffText = `shop/dev: rel_41 (version 41) -> rel_42 (version 42)

Tables: 1 added, 1 removed, 3 changed
  - carts
  ~ items
      + column price_cents
      - column price
  + order_lines
  ~ purchases
      + foreign key purchases_item_fk (item_id) -> items (id)
  ~ users
      + column display_name
      ~ column email: nullable true -> false

Logics: 1 added, 0 removed, 3 changed
  ~ admin/users: auth
      auth: required, roles admin, support -> required, roles admin
  ~ items/search: sql, params
      sql: SELECT id, name, price FROM items WHERE name ILIKE '%' || :q || '%'
       -> SELECT id, name, price_cents FROM items WHERE name ILIKE '%' || :q || '%' LIMIT :limit
      + param limit
  + posts/publish
  ~ purchase_item: sql
      sql: INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id)
       -> INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id

Broken logics: 1
  ! items/price_list
      items/price_list:14: UNKNOWN_COLUMN column "price" does not exist
`

func TestSnapshotDiff(t *testing.T) {
	t.Parallel()
	c := demoCLI(t)
	r := c.ok("snapshot", "diff")
	if r.stdout != demoDiffText {
		t.Errorf("snapshot diff:\n%s\nwant:\n%s", r.stdout, demoDiffText)
	}
	if strings.Contains(r.stdout, "\033[") {
		t.Error("colour codes on a stdout that is not a terminal")
	}
	if again := c.ok("snapshot", "diff", "rel_41", "rel_42"); again.stdout != demoDiffText {
		t.Errorf("snapshot diff rel_41 rel_42 differs from the default")
	}
	back := c.ok("snapshot", "diff", "rel_42", "rel_41").stdout
	for _, want := range []string{"rel_42 (version 42) -> rel_41 (version 41)", "  + carts\n", "  - order_lines\n",
		"      ~ column email: nullable false -> true\n", "  - posts/publish\n"} {
		if !strings.Contains(back, want) {
			t.Errorf("snapshot diff rel_42 rel_41 lacks %q:\n%s", want, back)
		}
	}
	if same := c.ok("snapshot", "diff", "rel_41", "rel_41").stdout; !strings.HasSuffix(same, "\nno changes\n") {
		t.Errorf("a release with itself:\n%s", same)
	}

	// --json: the tool's answer, whole.
	r = c.ok("snapshot", "diff", "--json")
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	var d answer.DiffOutput
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if d.From.ID != "rel_41" || d.To.ID != "rel_42" || len(d.Tables.Changed) != 3 || len(d.Logics.Changed) != 3 || d.More {
		t.Errorf("--json: %s", r.stdout)
	}
}

func TestSnapshotDiffErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")
	r := c.fails(exitError, "snapshot", "diff")
	mentions(t, "diff without a cache", r.msg(), "no releases of shop/dev are cached", "hubsnap snapshot sync")
	if exists(c.cacheDir()) {
		t.Error("snapshot diff created the cache")
	}

	c = demoCLI(t)
	mentions(t, "not cached", c.fails(exitError, "snapshot", "diff", "rel_9").msg(), `"rel_9"`, "hubsnap snapshot sync --release rel_9")
	c.ok("snapshot", "use", "rel_41")
	mentions(t, "no earlier release", c.fails(exitError, "snapshot", "diff").msg(), "no release older than rel_41",
		"hubsnap snapshot sync --release ID")
	prod := c.with("HUBSNAP_ENVIRONMENT", "prod")
	mentions(t, "another environment", prod.fails(exitError, "snapshot", "diff", "rel_41", "rel_42").msg(),
		`environment "dev", not "prod"`)
	c.fails(exitUsage, "snapshot", "diff", "../x")
	c.fails(exitUsage, "snapshot", "diff", "a", "b", "c")
	c.fails(exitUsage, "snapshot", "diff", "--bogus")
}

// On a terminal the marks are coloured.
func TestDiffColour(t *testing.T) {
	var buf bytes.Buffer
	d := &answer.DiffOutput{Tables: &answer.TablesDiff{Added: []answer.TableRef{{Name: "reviews", Connection: "main"}},
		Removed: []answer.TableRef{{Name: "events", Connection: "analytics"}}}}
	if err := writeDiff(&buf, "shop/dev", d, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\033[32m+ reviews\033[0m", "\033[31m- analytics.events\033[0m"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("coloured report lacks %q:\n%q", want, buf.String())
		}
	}
}

func TestSnapshotPrune(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")
	if r := c.ok("snapshot", "prune", "--keep", "1"); r.stdout != "shop/dev: no releases cached; nothing to prune\n" {
		t.Errorf("prune of no cache: %q", r.stdout)
	}
	if exists(c.cacheDir()) {
		t.Error("snapshot prune created the cache")
	}
	for v := 40; v <= 42; v++ {
		doc := filepath.Join(t.TempDir(), "rel.json")
		if err := os.WriteFile(doc, release(t, fmt.Sprintf("rel_%d", v), v), 0o600); err != nil {
			t.Fatal(err)
		}
		c.ok("snapshot", "import", doc)
	}
	c.ok("snapshot", "use", "rel_40")
	r := c.ok("snapshot", "prune", "--keep", "1")
	want := "removed shop/dev rel_41 (version 41)\nshop/dev: kept rel_42 (version 42), rel_40 (version 40, current)\n"
	if r.stdout != want {
		t.Errorf("prune --keep 1:\n%s\nwant:\n%s", r.stdout, want)
	}
	if exists(filepath.Join(c.cacheDir(), "releases", "shop", "rel_41.json")) {
		t.Error("rel_41.json is still there")
	}
	if list := c.ok("snapshot", "list").stdout; strings.Contains(list, "rel_41") {
		t.Errorf("rel_41 still listed:\n%s", list)
	}
	r = c.ok("snapshot", "prune", "--keep", "1", "--json")
	var got struct {
		Removed []map[string]any `json:"removed"`
		Kept    []map[string]any `json:"kept"`
	}
	decodeOne(t, r.stdout, &got)
	if len(got.Removed) != 0 || len(got.Kept) != 2 {
		t.Errorf("prune --json: %s", r.stdout)
	}
	mentions(t, "--keep 0", c.fails(exitUsage, "snapshot", "prune", "--keep", "0").msg(), "--keep must be at least 1")
	mentions(t, "no --keep", c.fails(exitUsage, "snapshot", "prune").msg(), "--keep N is required")
	c.fails(exitUsage, "snapshot", "prune", "--keep", "x")
	c.fails(exitUsage, "snapshot", "prune", "--keep", "1", "extra")
}
