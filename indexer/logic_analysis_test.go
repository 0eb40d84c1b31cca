package indexer

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// shopLogics are the logics of testdata/snapshots/shop.json.
var shopLogics = []string{"purchase_item", "admin/users", "posts/publish", "items/search"}

// readAnalyses reads the analysis of each shop logic of rel_41 back from
// the index.
func readAnalyses(tb testing.TB, c *Cache) map[string]*snapshot.Analysis {
	tb.Helper()
	out := map[string]*snapshot.Analysis{}
	for _, name := range shopLogics {
		a, err := c.Store().LogicAnalysis(context.Background(), store.ReleaseKey{Project: "shop", ID: "rel_41"}, name)
		if err != nil {
			tb.Fatalf("LogicAnalysis(%s): %v", name, err)
		}
		out[name] = a
	}
	return out
}

func analysisState(tb testing.TB, c *Cache) string {
	tb.Helper()
	state, err := c.Store().AnalysisState(context.Background(), store.ReleaseKey{Project: "shop", ID: "rel_41"})
	if err != nil {
		tb.Fatal(err)
	}
	return state
}

// TestImportAnalysesLogics: an import analyses the logics of a release
// with a postgres connection in its own transaction, and compiles the
// parser's cache under {cache}/parser.
func TestImportAnalysesLogics(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	c := openCache(t, dir)
	if got := analysisState(t, c); got != store.AnalysisDone {
		t.Fatalf("analysis state = %q, want done", got)
	}
	got := readAnalyses(t, c)
	// (shop.json's purchases.id has no default: MISSING_COLUMN is right.)
	if a := got["purchase_item"]; a.Statement != "insert" || len(a.Bindings) != 2 ||
		len(a.Result) != 1 || a.Result[0].Name != "id" {
		t.Errorf("purchase_item analysis = %+v", a)
	}
	if !c.Parses() {
		t.Error("a Cache opened by Open does not parse")
	}
}

// TestNoParseLeavesPending: a Cache opened with NoParse (serve) indexes a
// release pending, without analysis rows, and says so through OnPending;
// the next Cache that parses analyses it at Open, giving what the import
// gave.
func TestNoParseLeavesPending(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	c := openCache(t, dir)
	want := readAnalyses(t, c)
	c.Close()
	if err := os.Remove(filepath.Join(dir, indexFile)); err != nil { // indexed again from the files
		t.Fatal(err)
	}
	var told atomic.Int32
	np, err := OpenWith(ctx, dir, testLog(t), OpenOptions{NoParse: true, OnPending: func() { told.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if np.Parses() {
		t.Error("a NoParse Cache parses")
	}
	if got := analysisState(t, np); got != store.AnalysisPending {
		t.Errorf("analysis state = %q, want pending", got)
	}
	if _, err := np.Store().LogicAnalysis(ctx, store.ReleaseKey{Project: "shop", ID: "rel_41"}, "purchase_item"); err == nil {
		t.Error("a pending release has analysis rows")
	}
	if told.Load() == 0 {
		t.Error("OnPending was never called")
	}
	if n, err := np.AnalyzePending(ctx); n != 0 || err != nil {
		t.Errorf("AnalyzePending of a NoParse Cache = %d, %v; want 0, nil", n, err)
	}
	np.Close()

	c = openCache(t, dir)
	if got := analysisState(t, c); got != store.AnalysisDone {
		t.Fatalf("analysis state after a parsing Open = %q, want done", got)
	}
	if diff := cmp.Diff(want, readAnalyses(t, c)); diff != "" {
		t.Errorf("analysis of a pending release mismatch (-import +pending):\n%s", diff)
	}
}

// TestAnalysisMigration: an index made before migration 9 gets its
// releases analysed at the first open, from its rows: the release files
// are not indexed again.
func TestAnalysisMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	c := openCache(t, dir)
	want := readAnalyses(t, c)
	c.Close()

	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, indexFile))+"?vfs=hubsnap")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"DROP TABLE logic_analysis", "DROP TABLE logic_results", "DROP TABLE logic_tables",
		"DROP TABLE logic_bindings", "DROP TABLE logic_problems", "DROP TABLE release_analysis",
		"DELETE FROM schema_migrations WHERE version >= 9",
		"UPDATE releases SET synced_at = 'marker'", // a release indexed again would lose it
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	c = openCache(t, dir)
	if got := analysisState(t, c); got != store.AnalysisDone {
		t.Fatalf("analysis state after the migration = %q, want done", got)
	}
	if diff := cmp.Diff(want, readAnalyses(t, c)); diff != "" {
		t.Errorf("analysis after the migration mismatch (-import +migrated):\n%s", diff)
	}
	info, err := c.Store().ReleaseInfo(ctx, store.ReleaseKey{Project: "shop", ID: "rel_41"})
	if err != nil || info.SyncedAt != "marker" {
		t.Errorf("synced_at = %q, %v: the release was indexed again", info.SyncedAt, err)
	}
}
