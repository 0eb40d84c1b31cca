package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// emptyCounts is rowCounts of an index that holds no release.
func emptyCounts(tb testing.TB, s *Store) map[string]int {
	tb.Helper()
	out := rowCounts(tb, s)
	for name := range out {
		out[name] = 0
	}
	return out
}

func TestSampleRowCounts(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	want := map[string]int{
		"releases":              1,
		"current_releases":      1,
		"connections":           2,
		"tables":                6,
		"columns":               6 + 4 + 4 + 3 + 2 + 3,
		"foreign_keys":          2 + 1 + 2 + 1 + 1 + 1,
		"indexes":               2 + 1 + 1,
		"logics":                3,
		"logic_params":          3 + 1,
		"search":                6 + 3, // a row per table and per logic
		"search_names":          6 + 3, // and its name as words
		"search_words":          distinctWords(sampleSnapshot()),
		"release_checks":        1,
		"schema_finding_counts": 4,
		"schema_findings":       5, // TestSampleFindings
		"release_analysis":      1, // pending: put has no Analyzer
		"logic_analysis":        0,
		"logic_results":         0,
		"logic_tables":          0,
		"logic_bindings":        0,
		"logic_problems":        0,
	}
	if diff := gocmp.Diff(want, rowCounts(t, s)); diff != "" {
		t.Errorf("row counts mismatch (-want +got):\n%s", diff)
	}
}

func TestReplaceRelease(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()

	// Another release of the project must survive everything below.
	other := smallSnapshot("shop", "rel_41", "dev", 41, "old", 3)
	put(t, s, other, false)
	otherOnly := rowCounts(t, s)

	put(t, s, sampleSnapshot(), true)

	// Same project and id, different contents, not asked to become current.
	v2 := smallSnapshot("shop", "rel_42", "dev", 43, "acct", 2)
	v2.Logics = append(v2.Logics, snapshot.Logic{Name: "acct/list", SQL: "SELECT 1", Auth: snapshot.Auth{Required: true, Roles: []string{"x"}}})
	put(t, s, v2, false)

	cur, err := s.Current(ctx, shopDev)
	if err != nil {
		t.Fatalf("Current after replace: %v", err)
	}
	wantInfo := ReleaseInfo{Release: v2.Release, Origin: v2.Origin, Tables: 2, Logics: 2, Current: true}
	if diff := gocmp.Diff(wantInfo, cur); diff != "" {
		t.Errorf("Current after replace mismatch (-want +got):\n%s", diff)
	}

	tables, err := readTables(t, s, shopDev, "")
	if err != nil {
		t.Fatal(err)
	}
	wantTables := []TableRef{{Connection: "main", Name: "acct_000"}, {Connection: "main", Name: "acct_001"}}
	if diff := gocmp.Diff(wantTables, tables); diff != "" {
		t.Errorf("TablesPage after replace mismatch (-want +got):\n%s", diff)
	}
	logics, err := readLogics(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff([]string{"acct/count", "acct/list"}, logics); diff != "" {
		t.Errorf("LogicsPage after replace mismatch (-want +got):\n%s", diff)
	}
	_, err = s.TableJSON(ctx, shopDev, "main", "users")
	wantCode(t, err, NotFound)
	_, err = s.LogicJSON(ctx, shopDev, "purchase_item")
	wantCode(t, err, NotFound)
	// The new tables point at each other, not at anything of the sample.
	_, refs, err := readTable(t, s, shopDev, "main", "acct_000")
	if err != nil {
		t.Fatal(err)
	}
	wantRefs := []Reference{{Table: "acct_001", Connection: "main", Columns: []string{"prev_id"}, RefColumns: []string{"id"}}}
	if diff := gocmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("referencedBy after replace mismatch (-want +got):\n%s", diff)
	}

	// Exactly the rows of rel_41 plus those of v2: nothing of the sample
	// release is left behind.
	want := map[string]int{}
	for name, n := range otherOnly {
		want[name] = n
	}
	want["releases"] += 1
	want["current_releases"] += 1
	want["connections"] += 1
	want["tables"] += 2
	want["columns"] += 2 * 2
	want["foreign_keys"] += 1 // acct_001 to acct_000
	want["indexes"] += 2
	want["logics"] += 2
	want["logic_params"] += 1
	want["search"] += 2 + 2
	want["search_names"] += 2 + 2
	want["search_words"] += distinctWords(v2)
	want["release_checks"] += 1
	want["schema_finding_counts"] += 4
	want["schema_findings"] += schemaFindingCount(v2)
	if hasPostgres(v2) {
		want["release_analysis"]++
	}
	if diff := gocmp.Diff(want, rowCounts(t, s)); diff != "" {
		t.Errorf("row counts after replace mismatch (-want +got):\n%s", diff)
	}

	// Deleting rel_42 leaves exactly rel_41's rows.
	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
		t.Fatalf("DeleteRelease: %v", err)
	}
	if diff := gocmp.Diff(otherOnly, rowCounts(t, s)); diff != "" {
		t.Errorf("row counts after delete mismatch (-want +got):\n%s", diff)
	}
	_, err = s.Current(ctx, shopDev)
	wantCode(t, err, NoRelease)

	// Deleting a release that is not there is not an error.
	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
		t.Errorf("DeleteRelease of a missing release: %v", err)
	}

	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_41"}); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(emptyCounts(t, s), rowCounts(t, s)); diff != "" {
		t.Errorf("rows left after deleting every release (-want +got):\n%s", diff)
	}
	if n := foreignKeyViolations(t, s); n != 0 {
		t.Errorf("foreign_key_check: %d violations", n)
	}
}

func TestDeleteCurrentReleaseOrphans(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)
	put(t, s, sampleSnapshot(), true) // replace in place, twice
	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(emptyCounts(t, s), rowCounts(t, s)); diff != "" {
		t.Errorf("orphan rows after DeleteRelease (-want +got):\n%s", diff)
	}
	ptrs, err := s.Pointers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ptrs) != 0 {
		t.Errorf("Pointers after delete = %v, want none", ptrs)
	}
}

func TestEnvironmentChangeDropsPointer(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)

	moved := sampleSnapshot()
	moved.Release.Environment = "prod"
	put(t, s, moved, false)

	_, err := s.Current(ctx, shopDev)
	wantCode(t, err, NoRelease)
	_, err = s.Current(ctx, Target{Project: "shop", Environment: "prod"})
	wantCode(t, err, NoRelease)
	ptrs, err := s.Pointers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ptrs) != 0 {
		t.Errorf("Pointers = %v, want none", ptrs)
	}
	info, err := s.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: "rel_42"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Environment != "prod" || info.Current {
		t.Errorf("ReleaseInfo = env %q current %v, want env prod, not current", info.Environment, info.Current)
	}

	// Same environment again, made current: only the prod pointer exists.
	put(t, s, moved, true)
	if _, err := s.Current(ctx, Target{Project: "shop", Environment: "prod"}); err != nil {
		t.Errorf("Current(prod): %v", err)
	}
	_, err = s.Current(ctx, shopDev)
	wantCode(t, err, NoRelease)
}

func TestSetCurrent(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "a", 1), false)
	put(t, s, smallSnapshot("shop", "rel_42", "dev", 42, "b", 2), false)
	put(t, s, smallSnapshot("shop", "rel_p1", "prod", 7, "p", 3), false)

	currentID := func(t *testing.T) string {
		t.Helper()
		ri, err := s.Current(ctx, shopDev)
		if err != nil {
			t.Fatalf("Current: %v", err)
		}
		return ri.ID
	}

	if err := s.SetCurrent(ctx, "shop", "dev", "rel_41"); err != nil {
		t.Fatalf("SetCurrent(rel_41): %v", err)
	}
	if got := currentID(t); got != "rel_41" {
		t.Errorf("current = %q, want rel_41", got)
	}
	if err := s.SetCurrent(ctx, "shop", "dev", "rel_42"); err != nil {
		t.Fatalf("SetCurrent(rel_42): %v", err)
	}
	if got := currentID(t); got != "rel_42" {
		t.Errorf("current = %q, want rel_42", got)
	}

	err := s.SetCurrent(ctx, "shop", "dev", "rel_99")
	wantCode(t, err, NotFound)
	if msg := ErrorMessage(err); !strings.Contains(msg, "rel_99") || strings.Contains(msg, "rel_41") {
		t.Errorf("NotFound message %q should name rel_99 and no other release", msg)
	}
	err = s.SetCurrent(ctx, "blog", "dev", "rel_41") // right id, wrong project
	wantCode(t, err, NotFound)
	err = s.SetCurrent(ctx, "shop", "dev", "rel_p1")
	wantCode(t, err, WrongEnvironment)
	err = s.SetCurrent(ctx, "shop", "prod", "rel_41")
	wantCode(t, err, WrongEnvironment)

	if got := currentID(t); got != "rel_42" {
		t.Errorf("current after failed SetCurrent = %q, want rel_42", got)
	}
	_, err = s.Current(ctx, Target{Project: "shop", Environment: "prod"})
	wantCode(t, err, NoRelease)

	rels, err := s.Releases(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, fmt.Sprintf("%s v%d current=%v", r.ID, r.Version, r.Current))
	}
	want := []string{"rel_42 v42 current=true", "rel_41 v41 current=false", "rel_p1 v7 current=false"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Releases mismatch (-want +got):\n%s", diff)
	}
}

func TestReplacePointers(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "a", 1), false)
	put(t, s, smallSnapshot("shop", "rel_42", "dev", 42, "b", 1), false)
	put(t, s, smallSnapshot("shop", "rel_p1", "prod", 7, "p", 1), true) // replaced below
	put(t, s, smallSnapshot("blog", "rel_b1", "dev", 1, "c", 1), false)

	err := s.ReplacePointers(ctx, []Pointer{
		{Project: "shop", Environment: "dev", ID: "rel_42"},
		{Project: "shop", Environment: "prod", ID: "rel_99"},  // unknown release
		{Project: "blog", Environment: "prod", ID: "rel_b1"},  // release of another environment
		{Project: "blog", Environment: "dev", ID: "rel_b1"},   // fine
		{Project: "other", Environment: "dev", ID: "rel_41"},  // id of another project
		{Project: "shop", Environment: "stage", ID: "rel_41"}, // wrong environment
	})
	if err != nil {
		t.Fatalf("ReplacePointers: %v", err)
	}
	got, err := s.Pointers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pointer{
		{Project: "blog", Environment: "dev", ID: "rel_b1"},
		{Project: "shop", Environment: "dev", ID: "rel_42"},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Pointers mismatch (-want +got):\n%s", diff)
	}
	for _, target := range []Target{{"shop", "prod"}, {"blog", "prod"}, {"other", "dev"}, {"shop", "stage"}} {
		_, err := s.Current(ctx, target)
		wantCode(t, err, NoRelease)
	}

	if err := s.ReplacePointers(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Pointers(ctx); err != nil || len(got) != 0 {
		t.Errorf("Pointers after ReplacePointers(nil) = %v, %v; want none", got, err)
	}
}

func TestTouchFile(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	snap := sampleSnapshot()
	put(t, s, snap, true)
	key := ReleaseKey{Project: "shop", ID: "rel_42"}
	touched := FileState{Digest: "sha256:ignored", Size: 99, MTime: 42}
	if err := s.TouchFile(ctx, key, touched); err != nil {
		t.Fatal(err)
	}
	files, err := s.IndexedFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := IndexedFile{
		FileState:   FileState{Digest: fileStateOf(snap).Digest, Size: 99, MTime: 42},
		Environment: "dev",
	}
	if diff := gocmp.Diff(want, files[key]); diff != "" {
		t.Errorf("IndexedFiles after TouchFile mismatch (-want +got):\n%s", diff)
	}
}

func TestHookErrorRollsBack(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)

	boom := errors.New("boom")
	finishCalled := false
	failing := func() (func(bool), error) {
		return func(bool) { finishCalled = true }, boom
	}

	err := s.PutRelease(ctx, smallSnapshot("shop", "rel_42", "dev", 43, "x", 5), FileState{}, true, failing)
	if !errors.Is(err, boom) {
		t.Fatalf("PutRelease with failing hook: err = %v, want %v", err, boom)
	}
	err = s.PutRelease(ctx, smallSnapshot("shop", "rel_43", "dev", 43, "y", 5), FileState{}, true, failing)
	if !errors.Is(err, boom) {
		t.Fatalf("PutRelease (new release) with failing hook: err = %v, want %v", err, boom)
	}
	// A Change its caller rolls back (its file operation failed) writes
	// nothing either.
	ch, err := s.BeginSetCurrent(ctx, "shop", "dev", "rel_42")
	if err != nil {
		t.Fatalf("BeginSetCurrent: %v", err)
	}
	ch.Rollback()
	if finishCalled {
		t.Error("finish of a failed hook was called")
	}

	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after a failed hook (-want +got):\n%s", diff)
	}
	got, refs, err := readTable(t, s, shopDev, "main", "users")
	if err != nil {
		t.Fatalf("TableJSON after failed hook: %v", err)
	}
	if diff := gocmp.Diff(sampleTable(t, "main", "users"), got, equateEmpty); diff != "" {
		t.Errorf("TableJSON after failed hook mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(wantReferencedBy(sampleSnapshot(), "main", "users"), refs); diff != "" {
		t.Errorf("referencedBy after failed hook mismatch (-want +got):\n%s", diff)
	}

	// The writer is usable afterwards.
	put(t, s, smallSnapshot("shop", "rel_43", "dev", 43, "y", 5), true)
}

func TestHookFinish(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)

	var calls []bool
	var seenInHook []TableRef
	hook := func() (func(bool), error) {
		// Inside the write transaction, before commit: readers still see
		// the old release.
		var err error
		seenInHook, err = readTables(t, s, shopDev, "")
		if err != nil {
			return nil, err
		}
		return func(committed bool) { calls = append(calls, committed) }, nil
	}
	if err := s.PutRelease(ctx, smallSnapshot("shop", "rel_42", "dev", 43, "n", 2), FileState{}, true, hook); err != nil {
		t.Fatalf("PutRelease: %v", err)
	}
	if diff := gocmp.Diff([]bool{true}, calls); diff != "" {
		t.Errorf("finish calls mismatch (-want +got):\n%s", diff)
	}
	if len(seenInHook) != 6 {
		t.Errorf("reader during the hook saw %d tables, want the 6 of the old release", len(seenInHook))
	}
	tables, err := readTables(t, s, shopDev, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 {
		t.Errorf("after commit: %d tables, want 2", len(tables))
	}

	// A nil finish is fine.
	noFinish := func() (func(bool), error) { return nil, nil }
	if err := s.PutRelease(ctx, smallSnapshot("shop", "rel_44", "dev", 44, "m", 2), FileState{}, true, noFinish); err != nil {
		t.Errorf("PutRelease with hook without finish: %v", err)
	}
}

// TestHookFinishCommitFailed makes the commit fail (the context is canceled
// inside the hook) and expects finish(false) and an unchanged index.
func TestHookFinishCommitFailed(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls []bool
	hook := func() (func(bool), error) {
		cancel()
		return func(committed bool) { calls = append(calls, committed) }, nil
	}
	err := s.PutRelease(ctx, smallSnapshot("shop", "rel_42", "dev", 43, "n", 2), FileState{}, true, hook)
	if err == nil {
		t.Fatal("PutRelease with a context canceled before commit succeeded")
	}
	if diff := gocmp.Diff([]bool{false}, calls); diff != "" {
		t.Errorf("finish calls mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after a failed commit (-want +got):\n%s", diff)
	}
	put(t, s, smallSnapshot("shop", "rel_43", "dev", 43, "y", 1), true) // writer still usable
}

// TestReadersNeverSeeHalfARelease replaces one release over and over with two
// versions of different sizes while readers list its tables. Every listing
// must be exactly one whole version.
func TestReadersNeverSeeHalfARelease(t *testing.T) {
	t.Parallel()
	const (
		smallN     = 50
		bigN       = 80
		iterations = 12
		readers    = 2
	)
	s := openStore(t)
	ctx := context.Background()
	small := smallSnapshot("shop", "rel_42", "dev", 1, "a", smallN)
	big := smallSnapshot("shop", "rel_42", "dev", 2, "b", bigN)
	put(t, s, small, true)

	done := make(chan struct{})
	var wg sync.WaitGroup
	var sawSmall, sawBig, reads atomic.Int64

	wg.Go(func() {
		defer close(done)
		for i := range iterations {
			snap := big
			if i%2 == 1 {
				snap = small
			}
			if err := s.PutRelease(ctx, snap, FileState{}, true, nil); err != nil {
				t.Errorf("PutRelease %d: %v", i, err)
				return
			}
		}
	})

	check := func() bool {
		reads.Add(1)
		// One page (the default limit holds both versions whole): one
		// statement, one snapshot of the index.
		data, err := s.TablesPage(ctx, shopDev, "", PageRequest{})
		if err != nil {
			t.Errorf("TablesPage: %v", err)
			return false
		}
		var page wireTablesPage
		if err := decodeStrict(data, &page); err != nil {
			t.Errorf("TablesPage: %v\n%s", err, data)
			return false
		}
		tables := page.Tables
		if page.NextCursor != "" || page.Total != len(tables) {
			t.Errorf("TablesPage: %d tables, total %d, nextCursor %q: want the whole list on one page",
				len(tables), page.Total, page.NextCursor)
			return false
		}
		var want int
		var prefix string
		switch len(tables) {
		case smallN:
			want, prefix = smallN, "a_"
			sawSmall.Add(1)
		case bigN:
			want, prefix = bigN, "b_"
			sawBig.Add(1)
		default:
			t.Errorf("TablesPage returned %d tables, want %d or %d", len(tables), smallN, bigN)
			return false
		}
		for i, tbl := range tables {
			if name := fmt.Sprintf("%s%03d", prefix, i); tbl.Name != name {
				t.Errorf("listing of %d tables has %q at %d, want %q", want, tbl.Name, i, name)
				return false
			}
		}
		// Current is a separate transaction: only check it is one of the two.
		ri, err := s.Current(ctx, shopDev)
		if err != nil {
			t.Errorf("Current: %v", err)
			return false
		}
		if (ri.Tables != smallN || ri.Version != 1) && (ri.Tables != bigN || ri.Version != 2) {
			t.Errorf("Current = version %d with %d tables: a mix of the two versions", ri.Version, ri.Tables)
			return false
		}
		return true
	}
	for range readers {
		wg.Go(func() {
			for {
				if !check() {
					return
				}
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d reads: %d saw %d tables, %d saw %d", reads.Load(), sawSmall.Load(), smallN, sawBig.Load(), bigN)

	// The last write was the small version (iterations is even).
	tables, err := readTables(t, s, shopDev, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != smallN {
		t.Errorf("final listing has %d tables, want %d", len(tables), smallN)
	}
}

// TestPutReleaseFailureRollsBack makes the SQL itself fail halfway (two
// tables with one name) and expects the previous release untouched.
func TestPutReleaseFailureRollsBack(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)

	bad := smallSnapshot("shop", "rel_42", "dev", 43, "d", 10)
	bad.Tables = append(bad.Tables, bad.Tables[7])
	err := s.PutRelease(ctx, bad, FileState{}, true, nil)
	if err == nil {
		t.Fatal("PutRelease with a duplicate table succeeded")
	}
	if got := ErrorCode(err); got != Internal {
		t.Errorf("code = %q, want %q", got, Internal)
	}
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after a failed PutRelease (-want +got):\n%s", diff)
	}
	cur, err := s.Current(ctx, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Version != 42 || cur.Tables != 6 {
		t.Errorf("Current after failed PutRelease = version %d, %d tables; want 42, 6", cur.Version, cur.Tables)
	}
}

// TestTwoStoresShareIndex opens the index twice, as two processes would, and
// writes from both at once: no write fails with "database is locked", and
// hooks (which run inside the immediate transaction) never overlap.
func TestTwoStoresShareIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.db")
	a := openStoreAt(t, path)
	b := openStoreAt(t, path)
	ctx := context.Background()

	var inHook atomic.Int32
	hook := func() (func(bool), error) {
		if n := inHook.Add(1); n != 1 {
			t.Errorf("%d hooks running at once", n)
		}
		for range 100 {
			runtime.Gosched()
		}
		inHook.Add(-1)
		return nil, nil
	}
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Go(func() {
			for j := range 8 {
				snap := smallSnapshot("shop", fmt.Sprintf("rel_%d", i), "dev", int64(j), fmt.Sprintf("s%d", i), 5)
				if err := s.PutRelease(ctx, snap, FileState{}, true, hook); err != nil {
					t.Errorf("store %d, write %d: %v", i, j, err)
					return
				}
			}
		})
	}
	wg.Wait()

	// Each store sees the other's writes.
	for _, s := range []*Store{a, b} {
		rels, err := s.Releases(ctx, "shop")
		if err != nil {
			t.Fatal(err)
		}
		if len(rels) != 2 {
			t.Errorf("Releases = %d, want 2", len(rels))
		}
	}
}

// variedSnapshot is a release whose row counts cross the store's insert
// batch size in every child table: tables with 0 to 70 columns, several
// keys and indexes, logics with 0 to 70 params, in two connections.
func variedSnapshot(id string, tables, logics int) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: id, Project: "shop", Environment: "dev", Version: 5, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceHub, Digest: "sha256:" + strings.Repeat("c", 64), SyncedAt: "2026-11-01T10:00:01Z"},
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}, {Name: "side", Engine: "mysql"}},
	}
	for i := range tables {
		conn := "main"
		if i%5 == 4 {
			conn = "side"
		}
		t := snapshot.Table{Name: fmt.Sprintf("v_%03d", i), Connection: conn, Comment: fmt.Sprintf("table %d", i)}
		for j := range (i * 7) % 71 {
			c := snapshot.Column{Name: fmt.Sprintf("c%02d", j), Type: "integer", Nullable: j%2 == 1}
			if j%9 == 0 {
				c.Enum = []string{"x", fmt.Sprint(i), fmt.Sprint(j)}
			}
			if j%4 == 0 {
				c.Default = fmt.Sprint(j)
			}
			t.Columns = append(t.Columns, c)
		}
		if len(t.Columns) > 0 {
			t.PrimaryKey = []string{"c00"}
		}
		for k := range i % 4 {
			t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{
				Name: fmt.Sprintf("v_%03d_fk%d", i, k), Columns: []string{"c00"}, RefConnection: "main",
				RefTable: fmt.Sprintf("v_%03d", (i*3+k)%tables), RefColumns: []string{"c00"}, OnDelete: "cascade",
			})
		}
		for k := range i % 3 {
			t.Indexes = append(t.Indexes, snapshot.Index{Name: fmt.Sprintf("v_%03d_ix%d", i, k), Columns: []string{"c00"}, Unique: k == 0})
		}
		snap.Tables = append(snap.Tables, t)
	}
	for i := range logics {
		l := snapshot.Logic{Name: fmt.Sprintf("g%d/l_%03d", i%3, i), Description: fmt.Sprint("logic ", i), SQL: fmt.Sprint("SELECT ", i)}
		for j := range (i * 11) % 71 {
			l.Params = append(l.Params, snapshot.Param{Name: fmt.Sprintf("p%02d", j), Type: "string", Required: j%3 == 0})
		}
		if i%2 == 0 {
			l.Auth = snapshot.Auth{Required: true, Roles: []string{"r", fmt.Sprint(i)}}
		}
		snap.Logics = append(snap.Logics, l)
	}
	return snap
}

// wantReferencedBy computes the referencedBy list of table
// connection.name from a snapshot: every foreign key pointing at it, by
// referencing connection, table and key position.
func wantReferencedBy(snap *snapshot.Snapshot, connection, name string) []Reference {
	var out []Reference
	for _, t := range snap.Tables {
		for _, fk := range t.ForeignKeys {
			if fk.RefConnection == connection && fk.RefTable == name {
				out = append(out, Reference{Table: t.Name, Connection: t.Connection, Name: fk.Name,
					Columns: fk.Columns, RefColumns: fk.RefColumns})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Reference) int {
		return cmp.Compare(a.Connection+"\x00"+a.Table, b.Connection+"\x00"+b.Table)
	})
	return out
}

// checkWholeRelease reads every table and logic of t's current release back
// and compares it with snap.
func checkWholeRelease(t *testing.T, s *Store, snap *snapshot.Snapshot) {
	t.Helper()
	ctx := context.Background()
	for _, want := range snap.Tables {
		got, refs, err := readTable(t, s, shopDev, want.Connection, want.Name)
		if err != nil {
			t.Fatalf("TableJSON(%s.%s): %v", want.Connection, want.Name, err)
		}
		if diff := gocmp.Diff(&want, got, equateEmpty); diff != "" {
			t.Fatalf("TableJSON(%s.%s) mismatch (-want +got):\n%s", want.Connection, want.Name, diff)
		}
		if diff := gocmp.Diff(wantReferencedBy(snap, want.Connection, want.Name), refs, equateEmpty); diff != "" {
			t.Fatalf("TableJSON(%s.%s) referencedBy mismatch (-want +got):\n%s", want.Connection, want.Name, diff)
		}
	}
	for _, want := range snap.Logics {
		got, err := readLogic(t, s, shopDev, want.Name)
		if err != nil {
			t.Fatalf("LogicJSON(%s): %v", want.Name, err)
		}
		if diff := gocmp.Diff(&want, got, equateEmpty); diff != "" {
			t.Fatalf("LogicJSON(%s) mismatch (-want +got):\n%s", want.Name, diff)
		}
	}
	tables, err := readTables(t, s, shopDev, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(sortedTables(snap), tables); diff != "" {
		t.Fatalf("TablesPage mismatch (-want +got):\n%s", diff)
	}
	logics, err := readLogics(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(sortedLogics(snap), logics); diff != "" {
		t.Fatalf("LogicsPage mismatch (-want +got):\n%s", diff)
	}
	ri, err := s.Current(ctx, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if ri.Tables != len(snap.Tables) || ri.Logics != len(snap.Logics) {
		t.Errorf("Current counts = %d tables, %d logics; want %d, %d", ri.Tables, ri.Logics, len(snap.Tables), len(snap.Logics))
	}
}

// TestRoundTripAcrossBatches writes releases whose row counts fall on both
// sides of the insert batch size, next to other releases, and reads every
// table and logic back.
func TestRoundTripAcrossBatches(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	ctx := context.Background()
	// Rows of other releases before and after, so ids are not 1-based.
	put(t, s, smallSnapshot("shop", "rel_a", "dev", 1, "a", 70), false)
	for _, size := range []struct{ tables, logics int }{{64, 63}, {130, 129}, {0, 1}} {
		snap := variedSnapshot("rel_v", size.tables, size.logics)
		put(t, s, snap, true)
		checkWholeRelease(t, s, snap)
	}
	put(t, s, smallSnapshot("shop", "rel_b", "dev", 2, "b", 66), false)
	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_a"}); err != nil {
		t.Fatal(err)
	}
	snap := variedSnapshot("rel_v", 65, 65)
	put(t, s, snap, true)
	checkWholeRelease(t, s, snap)

	// The other releases are intact: read rel_b back through its pointer.
	if err := s.SetCurrent(ctx, "shop", "dev", "rel_b"); err != nil {
		t.Fatal(err)
	}
	checkWholeRelease(t, s, smallSnapshot("shop", "rel_b", "dev", 2, "b", 66))

	// Exactly the rows of the two releases left, after three replacements
	// of rel_v and the deletion of rel_a.
	want := snapshotRows(snap)
	addRows(want, snapshotRows(smallSnapshot("shop", "rel_b", "dev", 2, "b", 66)))
	want["current_releases"] = 1
	if diff := gocmp.Diff(want, rowCounts(t, s)); diff != "" {
		t.Errorf("row counts mismatch (-want +got):\n%s", diff)
	}
	if n := foreignKeyViolations(t, s); n != 0 {
		t.Errorf("foreign_key_check: %d violations", n)
	}
}

// TestCommitFailureReleasesWriter makes COMMIT itself fail on a deferred
// foreign key (the store defers foreign key checks to commit while it
// writes a release) and checks that the writer connection is not left
// inside a transaction.
func TestCommitFailureReleasesWriter(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)

	var calls []bool
	hook := func() (func(bool), error) {
		return func(committed bool) { calls = append(calls, committed) }, nil
	}
	// The writer does not enforce foreign keys; for this transaction it
	// does, so that its commit fails on a row without a parent.
	if _, err := s.w.ExecContext(ctx, "PRAGMA foreign_keys = ON"); err != nil {
		t.Fatal(err)
	}
	err := s.write(ctx, "orphan table", hook, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO tables (id, release, connection, name, comment, position)
			VALUES (999999, 999999, 'main', 'x', '', 0)`)
		return err
	})
	if _, err := s.w.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("commit of an orphan row succeeded")
	}
	if diff := gocmp.Diff([]bool{false}, calls); diff != "" {
		t.Errorf("finish calls mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after a failed commit (-want +got):\n%s", diff)
	}
	put(t, s, smallSnapshot("shop", "rel_43", "dev", 43, "y", 3), true)
	var deferred int
	if err := s.w.QueryRowContext(ctx, "PRAGMA defer_foreign_keys").Scan(&deferred); err != nil {
		t.Fatal(err)
	}
	if deferred != 0 {
		t.Error("defer_foreign_keys still on after the transaction")
	}
}

// The writer does not have SQLite enforce the schema's foreign keys; it
// keeps them itself. After releases are written, replaced, made current
// and deleted, no row is without its parent and nothing of a deleted
// release is left.
func TestWritesKeepForeignKeys(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		rows, err := s.r.QueryContext(ctx, "PRAGMA foreign_key_check")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var table, parent string
			var rowid, fk sql.NullInt64
			rows.Scan(&table, &rowid, &parent, &fk)
			t.Errorf("%s: a row of %s (rowid %v) has no row of %s", when, table, rowid, parent)
		}
	}
	put(t, s, sampleSnapshot(), true)
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "t", 50), false)
	check("after two releases")
	put(t, s, smallSnapshot("shop", "rel_42", "dev", 43, "u", 20), true) // replaces rel_42
	check("after a replace")
	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_41"}); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
		t.Fatal(err)
	}
	check("after deleting all")
	if diff := gocmp.Diff(emptyCounts(t, s), rowCounts(t, s)); diff != "" {
		t.Errorf("rows left after every release was deleted (-want +got):\n%s", diff)
	}
}

// A statement that fails on the writer's pipeline (here a table twice in
// one connection, which the decoder would have refused) fails the write
// with its own error, and nothing is written.
func TestWriteReleaseStatementFails(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	before := rowCounts(t, s)
	err := s.WriteRelease(ctx, WriteOptions{MakeCurrent: true}, func(w *ReleaseWriter) error {
		w.Release(snapshot.Release{ID: "rel_1", Project: "shop", Environment: "dev", Version: 1}, snapshot.Origin{})
		for i := range 2000 { // enough rows for the pipeline to be busy
			name := fmt.Sprintf("t%d", i)
			if i == 1500 {
				name = "t7"
			}
			if err := w.Table(&snapshot.Table{Name: name, Connection: "main", Columns: []snapshot.Column{{Name: "id", Type: "int"}}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || errors.Is(err, errPipeline) || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("WriteRelease = %v, want the UNIQUE constraint's error", err)
	}
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("rows after a failed write (-want +got):\n%s", diff)
	}
}
