package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// putAnalysed writes snap with the test Analyzer, as `hubsnap snapshot
// sync` does.
func putAnalysed(tb testing.TB, s *Store, snap *snapshot.Snapshot, makeCurrent bool) {
	tb.Helper()
	err := s.WriteRelease(context.Background(), WriteOptions{MakeCurrent: makeCurrent, Analyzer: testAnalyzer(tb)},
		func(w *ReleaseWriter) error {
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
		tb.Fatalf("WriteRelease(%s): %v", snap.Release.ID, err)
	}
}

// logicAnswer reads logic_get's answer strictly.
func logicAnswer(tb testing.TB, s *Store, name string) (*wireLogic, []byte) {
	tb.Helper()
	data, err := s.LogicJSON(context.Background(), shopDev, name)
	if err != nil {
		tb.Fatalf("LogicJSON(%s): %v", name, err)
	}
	var w wireLogic
	if err := decodeStrict(data, &w); err != nil {
		tb.Fatalf("LogicJSON(%s): %v\n%s", name, err, data)
	}
	return &w, data
}

// TestLogicJSONAnalysis: logic_get's analysis, composed by SQL, says
// exactly what the analysis found (the rows read back in Go, marshalled
// as SPEC §11 shapes them), for every logic of a release with results,
// bindings, problems, a syntax error, DDL and writes.
func TestLogicJSONAnalysis(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	snap := analysedSnapshot()
	putAnalysed(t, s, snap, true)
	key := ReleaseKey{Project: snap.Release.Project, ID: snap.Release.ID}
	for _, l := range snap.Logics {
		got, data := logicAnswer(t, s, l.Name)
		if got.Analysis == nil || got.AnalysisPending {
			t.Fatalf("%s: no analysis: %s", l.Name, data)
		}
		a, err := s.LogicAnalysis(ctx, key, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(a)
		var want wireAnalysis
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		want.Unjudged = a.Unjudged
		if diff := cmp.Diff(&want, got.Analysis); diff != "" {
			t.Errorf("%s: analysis mismatch (-want +got):\n%s", l.Name, diff)
		}
	}
	// Spot checks of the shape itself.
	got, _ := logicAnswer(t, s, "touch")
	if got.Analysis.Statement != "update" || got.Analysis.Result != nil || len(got.Analysis.Bindings) != 2 {
		t.Errorf("touch: %+v", got.Analysis)
	}
	got, _ = logicAnswer(t, s, "ddl")
	if got.Analysis.Unjudged == "" {
		t.Errorf("ddl: not said unjudged: %+v", got.Analysis)
	}
	got, _ = logicAnswer(t, s, "broken")
	codes := []string{}
	for _, p := range got.Analysis.Problems {
		codes = append(codes, p.Code)
	}
	if !strings.Contains(strings.Join(codes, " "), snapshot.CodeUnknownColumn) {
		t.Errorf("broken: problems %v, want UNKNOWN_COLUMN among them", codes)
	}
}

// TestAnalysisPendingAndAbsent: a release indexed without an Analyzer
// says analysisPending in logic_get and release_info, and lists no usedBy;
// one without a postgres connection says nothing of analysis.
func TestAnalysisPendingAndAbsent(t *testing.T) {
	s := openStore(t)
	put(t, s, analysedSnapshot(), true)
	got, data := logicAnswer(t, s, "posts_by")
	if !got.AnalysisPending || got.Analysis != nil {
		t.Errorf("pending release: logic_get = %s", data)
	}
	rel, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if !rel.AnalysisPending || rel.LogicProblems != nil {
		t.Errorf("pending release: release_info pending %v, logicProblems %v", rel.AnalysisPending, rel.LogicProblems)
	}
	tab, err := readTableAnswer(t, s, shopDev, "main", "posts")
	if err != nil {
		t.Fatal(err)
	}
	_ = tab

	mysql := analysedSnapshot()
	mysql.Release.ID, mysql.Release.Version = "rel_43", 43
	mysql.Connections = []snapshot.Connection{{Name: "main", Engine: "mysql"}, {Name: "analytics", Engine: "clickhouse"}}
	putAnalysed(t, s, mysql, true)
	got, data = logicAnswer(t, s, "posts_by")
	if got.AnalysisPending || got.Analysis != nil {
		t.Errorf("mysql release: logic_get = %s", data)
	}
	if rel, err = readRelease(t, s, shopDev); err != nil {
		t.Fatal(err)
	}
	if rel.AnalysisPending || rel.LogicProblems != nil {
		t.Errorf("mysql release: release_info pending %v, logicProblems %v", rel.AnalysisPending, rel.LogicProblems)
	}
}

// TestUsedByAndLogicProblems: schema_get_table lists the logics that
// touch a table, by name, with their access; release_info counts the
// logics with problems.
func TestUsedByAndLogicProblems(t *testing.T) {
	s := openStore(t)
	putAnalysed(t, s, analysedSnapshot(), true)
	data, err := s.TableJSON(context.Background(), shopDev, "main", "posts")
	if err != nil {
		t.Fatal(err)
	}
	var w wireTable
	if err := decodeStrict(data, &w); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	want := []wireUse{{"broken", "read"}, {"posts_by", "read"}, {"touch", "read_write"}}
	if diff := cmp.Diff(want, w.UsedBy); diff != "" || w.UsedByTotal != 0 {
		t.Errorf("usedBy mismatch (-want +got):\n%s (total %d)", diff, w.UsedByTotal)
	}
	rel, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	// broken (UNKNOWN_COLUMN, UNUSED_PARAM, UNDECLARED_PARAM) and typo
	// (SYNTAX); the sample's own logics may add theirs.
	var n int
	if err := s.r.QueryRow(`SELECT count(DISTINCT logic_id) FROM logic_problems`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if rel.LogicProblems == nil || *rel.LogicProblems != n || n < 2 || rel.AnalysisPending {
		t.Errorf("logicProblems = %v, want %d (>= 2)", rel.LogicProblems, n)
	}
}

// TestUsedByBounded: a table touched by more than 100 logics lists the
// first 100 by name, with usedByTotal.
func TestUsedByBounded(t *testing.T) {
	s := openStore(t)
	snap := analysedSnapshot()
	for i := range 150 {
		snap.Logics = append(snap.Logics, snapshot.Logic{Name: fmt.Sprintf("reader_%03d", 149-i), SQL: "SELECT id FROM posts"})
	}
	putAnalysed(t, s, snap, true)
	data, err := s.TableJSON(context.Background(), shopDev, "main", "posts")
	if err != nil {
		t.Fatal(err)
	}
	var w wireTable
	if err := decodeStrict(data, &w); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(w.UsedBy) != 100 || w.UsedByTotal != 153 {
		t.Fatalf("usedBy: %d listed, total %d; want 100 of 153", len(w.UsedBy), w.UsedByTotal)
	}
	if w.UsedBy[0].Logic != "broken" || w.UsedBy[2].Logic != "reader_000" || w.UsedBy[99].Logic != "reader_097" {
		t.Errorf("usedBy not by name: %v ... %v", w.UsedBy[:3], w.UsedBy[99])
	}
}

// TestLogicJSONAnalysisBounded: a logic whose analysis would not fit
// gives what fits of each list with its total, and the answer stays
// within AnswerBudget, whole or cut.
func TestLogicJSONAnalysisBounded(t *testing.T) {
	s := openStore(t)
	snap := analysedSnapshot()
	cols := make([]string, 1000)
	for i := range cols {
		cols[i] = fmt.Sprintf("p.body AS c_%04d", i)
	}
	wide := "SELECT " + strings.Join(cols, ", ") + " FROM posts p"
	snap.Logics = append(snap.Logics, snapshot.Logic{Name: "wide", SQL: wide},
		snapshot.Logic{Name: "wide_long", SQL: wide + " WHERE p.body <> '" + strings.Repeat("x", 20000) + "'"})
	putAnalysed(t, s, snap, true)
	for _, name := range []string{"wide", "wide_long"} {
		got, data := logicAnswer(t, s, name)
		if len(data) > AnswerBudget {
			t.Errorf("%s: %d bytes, over the budget", name, len(data))
		}
		a := got.Analysis
		if a == nil || a.ResultTotal != 1000 || len(a.Result) == 0 || len(a.Result) >= 1000 {
			t.Fatalf("%s: result %d of %d", name, len(a.Result), a.ResultTotal)
		}
		if a.Result[0].Name != "c_0000" {
			t.Errorf("%s: first result %+v", name, a.Result[0])
		}
		if truncated := strings.Contains(string(data), `"truncated":true`); truncated != (name == "wide_long") {
			t.Errorf("%s: truncated %v", name, truncated)
		}
		t.Logf("%s: %d bytes, %d result columns listed, truncated %v", name, len(data), len(a.Result), strings.Contains(string(data), `"truncated":true`))
	}
}

// TestCheckLogicProblems: the logic problems are findings of `snapshot
// check` and release_check, after the schema's, by logic in the
// snapshot's order, each with its logic and position; a code picks them,
// and pages of one finding walk them all.
func TestCheckLogicProblems(t *testing.T) {
	s := openStore(t)
	snap := analysedSnapshot()
	putAnalysed(t, s, snap, true)
	ctx := context.Background()
	// What the rows say, in the order the findings must follow.
	rows, err := s.r.QueryContext(ctx, `SELECT l.name, p.code, p.message, coalesce(p.sql_position, 0)
		FROM logic_problems p JOIN logics l ON l.id = p.logic_id ORDER BY p.logic_id, p.position`)
	if err != nil {
		t.Fatal(err)
	}
	var want []wireFinding
	for rows.Next() {
		var f wireFinding
		if err := rows.Scan(&f.Logic, &f.Code, &f.Message, &f.Position); err != nil {
			t.Fatal(err)
		}
		want = append(want, f)
	}
	rows.Close()
	if len(want) < 3 {
		t.Fatalf("%d logic problems: the sample should have more", len(want))
	}
	all, first := checkAll(t, s, shopDev, CheckRequest{})
	var logics []wireFinding
	for i, f := range all {
		if f.Logic != "" {
			logics = all[i:]
			break
		}
	}
	if diff := cmp.Diff(want, logics); diff != "" {
		t.Errorf("logic findings mismatch (-want +got):\n%s", diff)
	}
	if first.Total != int64(len(all)) || first.AnalysisPending {
		t.Errorf("total %d, pending %v; want %d, false", first.Total, first.AnalysisPending, len(all))
	}
	// One page at a time, through the schema's findings into the logics'.
	paged, _ := checkAll(t, s, shopDev, CheckRequest{PageRequest: PageRequest{Limit: 1}})
	if diff := cmp.Diff(all, paged); diff != "" {
		t.Errorf("paged findings mismatch (-whole +paged):\n%s", diff)
	}
	// A code runs that rule only.
	code := want[0].Code
	only, _ := checkAll(t, s, shopDev, CheckRequest{Codes: []string{code}})
	for _, f := range only {
		if f.Code != code {
			t.Errorf("--rule %s gave %+v", code, f)
		}
	}
	if len(only) == 0 {
		t.Errorf("--rule %s gave nothing", code)
	}
	// Pending: no logic findings, and said so.
	s2 := openStore(t)
	put(t, s2, analysedSnapshot(), true)
	_, first = checkAll(t, s2, shopDev, CheckRequest{})
	if !first.AnalysisPending {
		t.Error("pending release: analysisPending not set")
	}
}

// TestDiffBroken: logics.broken lists the logics of the newer release
// with problems the older one's did not have (by code and message), or
// new with problems, each with its new problems; a logic broken in both
// releases alike is not listed.
func TestDiffBroken(t *testing.T) {
	s := openStore(t)
	old := analysedSnapshot()
	old.Release.ID, old.Release.Version = "rel_41", 41
	putAnalysed(t, s, old, false)
	snap := analysedSnapshot()
	// posts.body dropped: posts_by (selects it) and touch (sets it) break.
	snap.Tables[1].Columns = snap.Tables[1].Columns[:3]
	snap.Logics = append(snap.Logics, snapshot.Logic{Name: "new_one", SQL: "SELECT missing FROM posts"})
	putAnalysed(t, s, snap, true)
	got, err := s.DiffJSON(context.Background(), shopDev, DiffRequest{Logics: true})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Logics struct {
			Broken []struct {
				Name     string        `json:"name"`
				Problems []wireProblem `json:"problems"`
			} `json:"broken"`
			BrokenTotal     int  `json:"brokenTotal"`
			AnalysisPending bool `json:"analysisPending"`
		} `json:"logics"`
	}
	if err := json.Unmarshal(got, &d); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range d.Logics.Broken {
		names = append(names, b.Name)
		for _, p := range b.Problems {
			if p.Code != snapshot.CodeUnknownColumn || !strings.Contains(p.Message, "body") && !strings.Contains(p.Message, "missing") {
				t.Errorf("%s: problem %+v", b.Name, p)
			}
		}
	}
	if got, want := strings.Join(names, " "), "new_one posts_by touch"; got != want || d.Logics.AnalysisPending || d.Logics.BrokenTotal != 0 {
		t.Errorf("broken = %q (pending %v, total %d), want %q\n%s", got, d.Logics.AnalysisPending, d.Logics.BrokenTotal, want, got)
	}
}
