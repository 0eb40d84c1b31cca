package diagram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver/diagram"
	"github.com/hubsnap/hubsnap/mcpserver/diagram/browsertest"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

var target = store.Target{Project: "big", Environment: "dev"}

// shopSnapshot is testdata/snapshots/shop.json, decoded, as project big.
func shopSnapshot(tb testing.TB) *snapshot.Snapshot {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "snapshots", "shop.json"))
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := snapshot.Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	snap.Release.Project = "big"
	return snap
}

// hostileNames are table and column names that break naive Mermaid:
// quotes, spaces, Mermaid's own words and symbols, Unicode, names that
// differ only in case or read the same once cleaned, and a 1 KiB name.
var hostileNames = []string{
	`"quoted"`, `with space`, `end`, `style`, `PK`, `fk`, `erDiagram`, `한국어 테이블`, strings.Repeat("x", 1024),
	`Users`, `users`, `a-b`, `a_b`, `a b`, `a.b`, `%%comment`, `#quot;`, `<script>alert(1)</script>`, `}`, `{`,
	`:`, `||--o{`, "📦 boxes", `back\slash`, "nbsp\u00a0name", "line\u2028sep", "`tick`", `1st`, `u`, `one`,
	`a;b`, `&amp;`, `"`, `--`, `pk한`, "zero\u200bwidth", strings.Repeat(`"`, 1024),
}

// hostileSnapshot is a release whose every table and column name is
// hostile: each table points at the first, and at the one before it.
func hostileSnapshot() *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_hostile", Project: "big", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:01Z"},
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}},
	}
	types := []string{"character varying(255)", "numeric(10,2)", "int[]", `"weird type"`, "타입", "pk", strings.Repeat("t", 1024)}
	for i, name := range hostileNames {
		t := snapshot.Table{Name: name, Connection: "main", PrimaryKey: []string{hostileNames[(i+1)%len(hostileNames)]}}
		for j := range 12 {
			col := hostileNames[(i+j+1)%len(hostileNames)]
			t.Columns = append(t.Columns, snapshot.Column{Name: col, Type: types[(i+j)%len(types)], Nullable: j%2 == 0})
		}
		if i > 0 {
			t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{Name: fmt.Sprintf(`fk "%d": %s`, i, name),
				Columns: []string{t.Columns[1].Name}, RefConnection: "main", RefTable: hostileNames[0], RefColumns: []string{hostileNames[1]}})
			t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{
				Columns: []string{t.Columns[2].Name, t.Columns[3].Name}, RefConnection: "main", RefTable: hostileNames[i-1],
				RefColumns: []string{hostileNames[1], hostileNames[2]}})
		}
		snap.Tables = append(snap.Tables, t)
	}
	return snap
}

func openStore(tb testing.TB, snap *snapshot.Snapshot) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "index.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if snap != nil {
		if err := st.PutRelease(context.Background(), snap, store.FileState{}, true, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return st
}

// mermaidCase is a diagram and its Mermaid text, to check in the browser.
type mermaidCase struct {
	Name string `json:"name"`
	Text string `json:"text"`
	d    diagram.Diagram
}

func diagramCase(tb testing.TB, st *store.Store, name string, req store.DiagramRequest) mermaidCase {
	tb.Helper()
	answer, err := st.DiagramJSON(context.Background(), target, req)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	var d diagram.Diagram
	if err := json.Unmarshal(answer, &d); err != nil {
		tb.Fatal(err)
	}
	return mermaidCase{Name: name, Text: diagram.Mermaid(&d), d: d}
}

// checkInBrowser runs every case through Mermaid's own parser and
// renderer in Chromium: each must draw one box per table and one line per
// foreign key, with the names readable.
func checkInBrowser(t *testing.T, cases []mermaidCase) {
	in, _ := json.Marshal(cases)
	out := browsertest.Node(t, "mermaid.mjs", in, 5*time.Minute)
	var results []struct {
		Name                    string
		Parsed, Rendered        bool
		Entities, Relationships int
		Text, Error             string
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(results) != len(cases) {
		t.Fatalf("%d results for %d cases: %s", len(results), len(cases), out)
	}
	for i, r := range results {
		c := cases[i]
		if !r.Parsed || !r.Rendered || r.Error != "" {
			t.Errorf("%s: parsed %v, rendered %v: %s\n%s", c.Name, r.Parsed, r.Rendered, r.Error, c.Text)
			continue
		}
		if r.Entities != len(c.d.Tables) || r.Relationships != len(c.d.Edges) {
			t.Errorf("%s: Mermaid drew %d entities and %d relationships, want %d and %d", c.Name, r.Entities,
				r.Relationships, len(c.d.Tables), len(c.d.Edges))
		}
		for _, tb := range c.d.Tables {
			if len([]rune(tb.Table)) < 30 && !strings.Contains(r.Text, tb.Table) {
				t.Errorf("%s: the picture does not show table %q", c.Name, tb.Table)
			}
		}
	}
}

func TestMermaidInBrowser(t *testing.T) {
	browsertest.Ready(t)
	st := openStore(t, hostileSnapshot())
	var cases []mermaidCase
	for _, name := range hostileNames {
		cases = append(cases, diagramCase(t, st, fmt.Sprintf("%.40q", name),
			store.DiagramRequest{Table: name, Connection: "main"}))
	}
	// The whole release in one diagram: every name at once.
	all := diagramCase(t, st, "all", store.DiagramRequest{Table: hostileNames[0], Connection: "main", Hops: 3})
	// (Its 1 KiB names fill the answer's budget before the 40 tables.)
	if all.d.TablesTotal != len(hostileNames) || !all.d.Truncated || len(all.d.Tables) < 5 {
		t.Fatalf("the diagram of %q holds %d tables of %d, want all %d, cut", hostileNames[0], len(all.d.Tables),
			all.d.TablesTotal, len(hostileNames))
	}
	cases = append(cases, all)
	// Every table of the shop fixture, 3 hops.
	shop := openStore(t, shopSnapshot(t))
	for _, tb := range shopSnapshot(t).Tables {
		c := diagramCase(t, shop, "shop "+tb.Connection+"."+tb.Name, store.DiagramRequest{Table: tb.Name, Connection: tb.Connection, Hops: 3})
		cases = append(cases, c)
	}
	checkInBrowser(t, cases)
}

// A 40-table neighbourhood of the 10,000-table synthetic release.
func TestMermaidInBrowserLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds the 10,000-table index; .ci/run runs it without -race")
	}
	browsertest.Ready(t)
	st := openStore(t, nil)
	err := st.WriteRelease(context.Background(), store.WriteOptions{MakeCurrent: true}, func(w *store.ReleaseWriter) error {
		return storetest.Fill(w, storetest.Large, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	c := diagramCase(t, st, "billing_users, 2 hops", store.DiagramRequest{Table: "billing_users", Hops: 2})
	if len(c.d.Tables) != store.MaxDiagramTables || !c.d.Truncated {
		t.Fatalf("billing_users, 2 hops: %d tables of %d; want 40 and truncated", len(c.d.Tables), c.d.TablesTotal)
	}
	if dir := os.Getenv("HUBSNAP_MERMAID_OUT"); dir != "" {
		os.WriteFile(filepath.Join(dir, "large.mmd"), []byte(c.Text), 0o644)
	}
	checkInBrowser(t, []mermaidCase{c})
}
