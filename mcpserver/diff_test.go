package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// demoSnapshots are the demo's two sample releases (cmd/hubsnap):
// rel_41 (version 41) and rel_42 (version 42), decoded by the real
// decoder, with a fixed origin.
func demoSnapshots(tb testing.TB) (older, newer *snapshot.Snapshot) {
	tb.Helper()
	read := func(name string) *snapshot.Snapshot {
		data, err := os.ReadFile(filepath.Join("..", "cmd", "hubsnap", name))
		if err != nil {
			tb.Fatal(err)
		}
		snap, err := snapshot.Decode(data)
		if err != nil {
			tb.Fatalf("decode %s: %v", name, err)
		}
		snap.Origin = fixedOrigin
		return snap
	}
	return read("demo_release_41.json"), read("demo_release.json")
}

// demoStore holds the demo's releases, rel_42 current.
func demoStore(tb testing.TB) *store.Store {
	tb.Helper()
	st := openStore(tb)
	older, newer := demoSnapshots(tb)
	putAnalysed(tb, st, older, store.FileState{}, false)
	putCurrent(tb, st, newer)
	return st
}

// demoGoldenCalls are the golden transcripts over the demo's two releases.
var demoGoldenCalls = []struct {
	file string
	tool string
	args any
}{
	{"schema_diff_demo", "schema_diff", map[string]any{}},
	{"schema_diff_demo_reverse", "schema_diff", map[string]any{"from": "rel_42", "to": "rel_41"}},
	{"schema_diff_demo_limit", "schema_diff", map[string]any{"limit": 3}},
	{"schema_join_path_demo", "schema_join_path", map[string]any{"from": "main.users", "to": "items"}},
	{"release_info_demo", "release_info", map[string]any{}},
}

func TestGoldenDemoTranscripts(t *testing.T) {
	cs := connect(t, newServer(t, demoStore(t)))
	for _, g := range demoGoldenCalls {
		t.Run(g.file, func(t *testing.T) {
			res := call(t, cs, g.tool, g.args)
			checkGolden(t, g.file+".json", newTranscript(t, g.tool, g.args, res))
		})
	}
}

// TestDiffOfAnotherEnvironment checks that a release cached for another
// environment than the server's is WRONG_ENVIRONMENT, not a bad argument.
func TestDiffOfAnotherEnvironment(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	prod := shopSnapshot(t)
	prod.Release.ID, prod.Release.Version, prod.Release.Environment = "rel_p1", 41, "prod"
	if err := st.PutRelease(context.Background(), prod, store.FileState{}, false, nil); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, st))
	msg := wantCode(t, call(t, cs, "schema_diff", map[string]any{"from": "rel_p1"}), store.WrongEnvironment)
	if want := `release "rel_p1" is of environment "prod", not "dev"`; !strings.Contains(msg, want) {
		t.Errorf("message %q, want it to say %s", msg, want)
	}
}

// The demo's diff, decoded: what the demo shows a person.
func TestDiffDemo(t *testing.T) {
	cs := connect(t, newServer(t, demoStore(t)))
	got := success[answer.DiffOutput](t, call(t, cs, "schema_diff", map[string]any{}))
	if got.More || len(got.Tables.Added) != 1 || got.Tables.Added[0].Name != "order_lines" ||
		len(got.Logics.Added) != 1 || got.Logics.Added[0] != "posts/publish" {
		t.Errorf("demo diff: %+v", got)
	}
	res := call(t, cs, "schema_diff", map[string]any{"from": "rel_41", "to": "rel_41"})
	if got := success[answer.DiffOutput](t, res); got.Tables == nil || got.Tables.Added != nil || got.Tables.Changed != nil {
		t.Errorf("a release with itself: %s", text(t, res))
	}
}
