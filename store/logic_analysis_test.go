package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

var (
	analyzerOnce sync.Once
	analyzerTest *analysis.Analyzer
	analyzerErr  error
)

// testAnalyzer returns one Analyzer shared by the package's tests, its
// compilation cache in the system's temporary folder.
func testAnalyzer(tb testing.TB) *analysis.Analyzer {
	tb.Helper()
	analyzerOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "hubsnap-analysis-test-wazero")
		analyzerTest, analyzerErr = analysis.New(context.Background(), analysis.Options{CacheDir: dir})
	})
	if analyzerErr != nil {
		tb.Fatal(analyzerErr)
	}
	return analyzerTest
}

// hasPostgres reports whether snap has a postgres connection.
func hasPostgres(snap *snapshot.Snapshot) bool {
	for _, c := range snap.Connections {
		if analysis.IsPostgres(c.Engine) {
			return true
		}
	}
	return false
}

// analysedSnapshot is sampleSnapshot with logics that exercise every
// kind of row: results with and without sources, bindings, problems with
// and without a position, an unjudged logic, a cast to an enum type.
func analysedSnapshot() *snapshot.Snapshot {
	snap := sampleSnapshot()
	snap.Tables[1].Columns[2].Type = "post_status" // posts.status: an enum type
	snap.Logics = append(snap.Logics,
		snapshot.Logic{Name: "posts_by", SQL: "SELECT p.id, p.body, u.email AS author, count(*) OVER () AS n FROM posts p JOIN users u ON u.id = p.author_id WHERE u.id = :user AND p.status = 'draft'::post_status",
			Params: []snapshot.Param{{Name: "user", Type: "string"}}},
		snapshot.Logic{Name: "broken", SQL: "SELECT nope FROM posts WHERE author_id = :who",
			Params: []snapshot.Param{{Name: "unused", Type: "string"}}},
		snapshot.Logic{Name: "typo", SQL: "SELEC 1"},
		snapshot.Logic{Name: "ddl", SQL: "CREATE TABLE x (a int)"},
		snapshot.Logic{Name: "touch", SQL: "UPDATE posts SET body = :body WHERE id = :id",
			Params: []snapshot.Param{{Name: "body", Type: "string"}, {Name: "id", Type: "string"}}},
	)
	return snap
}

// TestLogicAnalysisRows: the analysis read back from the index is exactly
// what the analysis package gives with the whole release in memory, for
// each logic; a release written again keeps one set of rows.
func TestLogicAnalysisRows(t *testing.T) {
	ctx := context.Background()
	a := testAnalyzer(t)
	s := openStore(t)
	snap := analysedSnapshot()
	for range 2 { // the second write replaces the first
		err := s.WriteRelease(ctx, WriteOptions{MakeCurrent: true, Analyzer: a}, func(w *ReleaseWriter) error {
			w.Release(snap.Release, snap.Origin)
			w.File(fileStateOf(snap))
			for _, c := range snap.Connections {
				if err := w.Connection(c); err != nil {
					return err
				}
			}
			for i := range snap.Tables {
				if err := w.Table(&snap.Tables[i]); err != nil {
					return err
				}
			}
			for i := range snap.Logics {
				if err := w.Logic(&snap.Logics[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	key := ReleaseKey{Project: snap.Release.Project, ID: snap.Release.ID}
	if state, err := s.AnalysisState(ctx, key); err != nil || state != AnalysisDone {
		t.Fatalf("AnalysisState = %q, %v; want done", state, err)
	}
	cat := analysis.NewTables(snap) // the whole release in memory
	withProblems := 0
	for _, l := range snap.Logics {
		want := a.Analyze(ctx, cat, l)
		if len(want.Problems) > 0 {
			withProblems++
		}
		got, err := s.LogicAnalysis(ctx, key, l.Name)
		if err != nil {
			t.Fatalf("LogicAnalysis(%s): %v", l.Name, err)
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("LogicAnalysis(%s) mismatch (-want +got):\n%s", l.Name, diff)
		}
	}
	if withProblems < 2 {
		t.Errorf("%d logics with problems: the sample should have some", withProblems)
	}
	var stored int
	if err := s.r.QueryRow(`SELECT logic_problems FROM release_analysis`).Scan(&stored); err != nil || stored != withProblems {
		t.Errorf("release_analysis.logic_problems = %d, %v; want %d", stored, err, withProblems)
	}
	counts := rowCounts(t, s)
	if counts["logic_analysis"] != len(snap.Logics) || counts["release_analysis"] != 1 {
		t.Errorf("rows: %d logic_analysis, %d release_analysis; want %d, 1", counts["logic_analysis"], counts["release_analysis"], len(snap.Logics))
	}
	if n := foreignKeyViolations(t, s); n != 0 {
		t.Errorf("%d foreign key violations", n)
	}
	// usedBy's read: the logics touching posts, by the table's key.
	var users []string
	rows, err := s.r.Query(`SELECT l.name || ':' || lt.access FROM logic_tables lt JOIN logics l ON l.id = lt.logic_id
		WHERE lt.connection = 'main' AND lt.table_name = 'posts' ORDER BY l.name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u string
		rows.Scan(&u)
		users = append(users, u)
	}
	if got, want := strings.Join(users, " "), "broken:read posts_by:read touch:read_write"; got != want {
		t.Errorf("logics touching posts = %q, want %q", got, want)
	}
}

// TestLogicAnalysisPending: without an Analyzer a release with postgres
// logics is pending and has no analysis rows; one without a postgres
// connection has no row at all; one without logics is done.
func TestLogicAnalysisPending(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	snap := analysedSnapshot()
	put(t, s, snap, true)
	key := ReleaseKey{Project: snap.Release.Project, ID: snap.Release.ID}
	if state, err := s.AnalysisState(ctx, key); err != nil || state != AnalysisPending {
		t.Fatalf("AnalysisState = %q, %v; want pending", state, err)
	}
	if _, err := s.LogicAnalysis(ctx, key, "broken"); err == nil {
		t.Error("LogicAnalysis of a pending release: no error")
	}
	other := smallSnapshot("shop", "rel_other", "prod", 1, "x", 3)
	other.Connections = []snapshot.Connection{{Name: "main", Engine: "mysql"}}
	put(t, s, other, true)
	if state, err := s.AnalysisState(ctx, ReleaseKey{Project: "shop", ID: "rel_other"}); err != nil || state != "" {
		t.Errorf("AnalysisState(mysql) = %q, %v; want none", state, err)
	}
	empty := smallSnapshot("shop", "rel_empty", "qa", 1, "y", 3)
	empty.Connections = []snapshot.Connection{{Name: "main", Engine: "postgres"}}
	empty.Logics = nil
	put(t, s, empty, true)
	if state, err := s.AnalysisState(ctx, ReleaseKey{Project: "shop", ID: "rel_empty"}); err != nil || state != AnalysisDone {
		t.Errorf("AnalysisState(no logics) = %q, %v; want done", state, err)
	}
}

// TestLogicAnalysisBudget: once a release's analysis has spent its time
// budget, the logics left are written unjudged, with the reason, and
// without problems (none is certain).
func TestLogicAnalysisBudget(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	defer func(b time.Duration) { analysisBudget = b }(analysisBudget)
	analysisBudget = -1 // spent before the first logic
	snap := analysedSnapshot()
	if err := writeAnalysed(s, snap, testAnalyzer(t)); err != nil {
		t.Fatal(err)
	}
	key := ReleaseKey{Project: snap.Release.Project, ID: snap.Release.ID}
	if state, err := s.AnalysisState(ctx, key); err != nil || state != AnalysisDone {
		t.Fatalf("AnalysisState = %q, %v; want done", state, err)
	}
	for _, l := range snap.Logics {
		got, err := s.LogicAnalysis(ctx, key, l.Name)
		if err != nil {
			t.Fatalf("LogicAnalysis(%s): %v", l.Name, err)
		}
		if got.Unjudged != overBudget || len(got.Problems) != 0 || got.Result != nil {
			t.Errorf("LogicAnalysis(%s) = %+v; want unjudged %q, no problems, no result", l.Name, got, overBudget)
		}
	}
}

// writeAnalysed writes snap as the current release, its logics analysed by a.
func writeAnalysed(s *Store, snap *snapshot.Snapshot, a *analysis.Analyzer) error {
	return s.WriteRelease(context.Background(), WriteOptions{MakeCurrent: true, Analyzer: a}, func(w *ReleaseWriter) error {
		w.Release(snap.Release, snap.Origin)
		w.File(fileStateOf(snap))
		for _, c := range snap.Connections {
			if err := w.Connection(c); err != nil {
				return err
			}
		}
		for i := range snap.Tables {
			if err := w.Table(&snap.Tables[i]); err != nil {
				return err
			}
		}
		for i := range snap.Logics {
			if err := w.Logic(&snap.Logics[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
