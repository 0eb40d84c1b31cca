package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// watchLimit bounds every wait for the watcher; a healthy run takes a
// fraction of it. docs/design.md asks for changes within 2 s; these tests use a
// short quiet period, so they see them much sooner.
const watchLimit = 10 * time.Second

// watched is a cache with a running watcher whose rescans a test can wait on.
type watched struct {
	*Cache
	tb      testing.TB
	limit   time.Duration // bound of until; watchLimit unless a test needs more
	rescans chan error
	changes atomic.Int64
}

func startWatch(tb testing.TB, dir string, opts WatchOptions) *watched {
	tb.Helper()
	w := &watched{Cache: openCache(tb, dir), tb: tb, limit: watchLimit, rescans: make(chan error, 1000)}
	if opts.Quiet == 0 {
		opts.Quiet = 50 * time.Millisecond
	}
	opts.Every = time.Hour // events only, unless a test says otherwise
	opts.Changed = func() { w.changes.Add(1) }
	opts.Rescanned = func(err error) { w.rescans <- err }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Watch(ctx, opts) }()
	select { // the first rescan: the watches are in place
	case err := <-w.rescans:
		if err != nil {
			tb.Fatal(err)
		}
	case <-time.After(watchLimit):
		tb.Fatal("the watcher did not start")
	}
	tb.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("Watch: %v", err)
			}
		case <-time.After(watchLimit):
			tb.Error("Watch did not stop")
		}
	})
	return w
}

// until waits, rescan by rescan, for cond to hold.
func (w *watched) until(what string, cond func() bool) {
	w.tb.Helper()
	deadline := time.After(w.limit)
	for !cond() {
		select {
		case err := <-w.rescans:
			if err != nil {
				w.tb.Fatalf("rescan: %v", err)
			}
		case <-deadline:
			w.tb.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (w *watched) currentID() string {
	ri, err := w.Store().Current(context.Background(), shopDev)
	if err != nil {
		return string(store.ErrorCode(err))
	}
	return ri.ID
}

// putFile writes a release file into place the way sync does (temp file,
// rename), without touching the index: as another process would.
func putFile(tb testing.TB, dir, project, name string, data []byte) {
	tb.Helper()
	folder := filepath.Join(dir, "releases", project)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		tb.Fatal(err)
	}
	tmp := filepath.Join(folder, "."+name+".part-test")
	writeFile(tb, tmp, data)
	if err := os.Rename(tmp, filepath.Join(folder, name)); err != nil {
		tb.Fatal(err)
	}
}

func TestWatchFollowsReleaseFiles(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	w := startWatch(t, dir, WatchOptions{})
	if got := w.currentID(); got != "rel_41" {
		t.Fatalf("current = %s, want rel_41", got)
	}

	// A new release file, then the pointer to it.
	putFile(t, dir, "shop", "rel_42.json", shopDoc(t, "rel_42", 42, nil))
	putFile(t, dir, "shop", "dev.current", []byte("rel_42\n"))
	w.until("rel_42 to be current", func() bool { return w.currentID() == "rel_42" })

	// The pointer changes back.
	putFile(t, dir, "shop", "dev.current", []byte("rel_41\n"))
	w.until("rel_41 to be current again", func() bool { return w.currentID() == "rel_41" })

	// The current release's file is removed: NO_RELEASE; restored: back.
	file := filepath.Join(dir, "releases/shop/rel_41.json")
	saved := readFile(t, file)
	os.Remove(file)
	w.until("NO_RELEASE", func() bool { return w.currentID() == string(store.NoRelease) })
	putFile(t, dir, "shop", "rel_41.json", []byte(saved))
	w.until("rel_41 to be served again", func() bool { return w.currentID() == "rel_41" })

	// A project folder created after the watch started.
	putFile(t, dir, "blog", "rel_1.json", shopDoc(t, "rel_1", 1, func(doc map[string]any) {
		doc["release"].(map[string]any)["project"] = "blog"
	}))
	putFile(t, dir, "blog", "dev.current", []byte("rel_1\n"))
	w.until("blog's release", func() bool {
		ri, err := w.Store().Current(context.Background(), store.Target{Project: "blog", Environment: "dev"})
		return err == nil && ri.ID == "rel_1"
	})
}

// The watcher follows compressed release files as it does plain ones: one
// appears, a plain file of the same release dropped beside it (newer)
// takes over, and when that goes the compressed one is served again.
func TestWatchFollowsCompressedFiles(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	w := startWatch(t, dir, WatchOptions{})
	comment := func() string {
		tbl, err := readTable(t, w.Store(), shopDev, "", "posts")
		if err != nil {
			return string(store.ErrorCode(err))
		}
		return tbl.Comment
	}

	putFile(t, dir, "shop", "rel_42.json.zst", packBytes(t, commented(t, "rel_42", 42, "compressed")))
	putFile(t, dir, "shop", "dev.current", []byte("rel_42\n"))
	w.until("rel_42 from its compressed file", func() bool { return w.currentID() == "rel_42" && comment() == "compressed" })

	putFile(t, dir, "shop", "rel_42.json", commented(t, "rel_42", 42, "plain"))
	later := time.Now().Add(time.Minute) // newer than the compressed file, whatever the clock's grain
	os.Chtimes(filepath.Join(dir, "releases/shop/rel_42.json"), later, later)
	w.until("the newer plain file", func() bool { return comment() == "plain" })

	os.Remove(filepath.Join(dir, "releases/shop/rel_42.json"))
	w.until("the compressed file again", func() bool { return comment() == "compressed" })

	os.Remove(filepath.Join(dir, "releases/shop/rel_42.json.zst"))
	w.until("NO_RELEASE", func() bool { return w.currentID() == string(store.NoRelease) })
}

func TestWatchSurvivesReleasesFolderRecreated(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	w := startWatch(t, dir, WatchOptions{})
	releases := filepath.Join(dir, "releases")
	if err := os.Rename(releases, filepath.Join(t.TempDir(), "moved-away")); err != nil {
		t.Fatal(err)
	}
	w.until("NO_RELEASE with releases/ gone", func() bool { return w.currentID() == string(store.NoRelease) })

	// Recreated, and filled afterwards: the new folders must be watched.
	if err := os.Mkdir(releases, 0o700); err != nil {
		t.Fatal(err)
	}
	putFile(t, dir, "shop", "rel_42.json", shopDoc(t, "rel_42", 42, nil))
	putFile(t, dir, "shop", "dev.current", []byte("rel_42\n"))
	w.until("rel_42 in the recreated folder", func() bool { return w.currentID() == "rel_42" })
	putFile(t, dir, "shop", "dev.current", []byte("rel_77\n"))
	w.until("a later change in the recreated folder", func() bool { return w.currentID() == string(store.NoRelease) })
}

func TestWatchFoldsABurstIntoOneReindex(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	// A long MaxWait: the burst must end in one rescan however slow the
	// machine is.
	w := startWatch(t, dir, WatchOptions{Quiet: 500 * time.Millisecond, MaxWait: time.Minute})
	// Build the documents first, so the writes themselves come as a burst.
	docs := make([][]byte, 100)
	for i := range docs {
		docs[i] = shopDoc(t, "rel_42", 42, func(doc map[string]any) {
			doc["tables"].([]any)[0].(map[string]any)["comment"] = fmt.Sprintf("write %d", i)
		})
	}
	for _, doc := range docs {
		putFile(t, dir, "shop", "rel_42.json", doc)
	}
	w.until("the last write to be indexed", func() bool {
		tbl, err := readTable(t, w.Store(), shopDev, "main", "users")
		return err == nil && tbl.Comment == "write 99"
	})
	if got := w.changes.Load(); got != 1 {
		t.Errorf("%d re-indexes for a burst of 100 writes, want 1", got)
	}
	tbl, err := readTable(t, w.Store(), shopDev, "analytics", "users")
	if err != nil || tbl.Comment != "Daily user rollup" {
		t.Fatalf("analytics.users = %v, %v", tbl, err)
	}
	// A rescan that finds nothing new changes nothing.
	putFile(t, dir, "shop", "notes.txt", []byte("not a release"))
	select {
	case <-w.rescans:
	case <-time.After(watchLimit):
		t.Fatal("no rescan")
	}
	if got := w.changes.Load(); got != 1 {
		t.Errorf("a rescan with nothing new changed the index (%d changes)", got)
	}
}

// TestWatchReindexRace re-indexes a 2,000-table release over and over while
// readers look tables up: every answer must come from one release whole.
func TestWatchReindexRace(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	const tables = 2000
	dir := t.TempDir()
	big := func(gen int) []byte {
		snap := &snapshot.Snapshot{Release: snapshot.Release{ID: "rel_1", Project: "shop", Environment: "dev", Version: 1}}
		for i := range tables {
			t := snapshot.Table{Name: fmt.Sprintf("t_%04d", i), Connection: snapshot.DefaultConnection, Comment: fmt.Sprintf("gen %d", gen)}
			for j := range 5 {
				t.Columns = append(t.Columns, snapshot.Column{Name: fmt.Sprintf("g%d_c%d", gen, j), Type: "text", Nullable: true})
			}
			snap.Tables = append(snap.Tables, t)
		}
		data, err := encodeRelease(snap)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	importDoc(t, dir, big(0))
	w := startWatch(t, dir, WatchOptions{Quiet: 10 * time.Millisecond, MaxWait: 50 * time.Millisecond})
	// Re-indexing 2,000 tables under -race on a busy machine can take many
	// seconds: this bounds a hang, not the speed.
	w.limit = 3 * time.Minute

	stop := make(chan struct{})
	var reads, torn atomic.Int64
	var wg sync.WaitGroup
	stopReaders := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	defer stopReaders() // also when a wait fails: no reader outlives the test
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tbl, err := readTable(t, w.Store(), shopDev, "main", fmt.Sprintf("t_%04d", (i*7+r)%tables))
				if err != nil {
					t.Errorf("read during re-index: %v", err)
					return
				}
				var gen int
				fmt.Sscanf(tbl.Comment, "gen %d", &gen)
				for _, c := range tbl.Columns {
					if c.Name[:len(fmt.Sprintf("g%d_", gen))] != fmt.Sprintf("g%d_", gen) {
						torn.Add(1)
					}
				}
				reads.Add(1)
			}
		}()
	}
	const rounds = 4
	for gen := 1; gen <= rounds; gen++ {
		putFile(t, dir, "shop", "rel_1.json", big(gen))
		want := fmt.Sprintf("gen %d", gen)
		w.until("generation "+want, func() bool {
			tbl, err := readTable(t, w.Store(), shopDev, "main", "t_0000")
			return err == nil && tbl.Comment == want
		})
	}
	stopReaders()
	t.Logf("%d re-indexes of %d tables, %d reads during them", rounds, tables, reads.Load())
	if torn.Load() > 0 {
		t.Errorf("%d torn reads: a table's columns from another release", torn.Load())
	}
	if reads.Load() == 0 {
		t.Error("no reads happened")
	}
}
