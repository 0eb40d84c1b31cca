package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver/mcpservertest"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

func testAnalyzer(tb testing.TB) *analysis.Analyzer { tb.Helper(); return mcpservertest.Analyzer(tb) }

// putAnalysed stores snap with its logics analysed.
func putAnalysed(tb testing.TB, st *store.Store, snap *snapshot.Snapshot, file store.FileState, makeCurrent bool) {
	tb.Helper()
	mcpservertest.PutAnalysed(tb, st, snap, file, makeCurrent)
}

// analyses analyses every logic of snap in memory, with the whole release
// as its tables: what the answers, composed by SQL from the index's
// rows, must say. Nil when snap has no postgres connection.
func analyses(tb testing.TB, snap *snapshot.Snapshot) map[string]*snapshot.Analysis {
	tb.Helper()
	postgres := false
	for _, c := range snap.Connections {
		postgres = postgres || analysis.IsPostgres(c.Engine)
	}
	if !postgres {
		return nil
	}
	cat := analysis.NewTables(snap)
	a := testAnalyzer(tb)
	out := map[string]*snapshot.Analysis{}
	for _, l := range snap.Logics {
		res := a.Analyze(context.Background(), cat, l)
		out[l.Name] = &res
	}
	return out
}

// wantAnalysis is logic_get's analysis of a, whole (SPEC §11).
func wantAnalysis(a *snapshot.Analysis) *answer.LogicAnalysis {
	out := &answer.LogicAnalysis{Statement: a.Statement, Tables: []snapshot.TableAccess{}, Bindings: []snapshot.Binding{}, Problems: []snapshot.Problem{},
		Unjudged: a.Unjudged}
	for _, t := range a.Tables {
		out.Tables = append(out.Tables, snapshot.TableAccess(t))
	}
	if a.Result != nil {
		out.Result = []snapshot.ResultColumn{}
		for _, c := range a.Result {
			rc := snapshot.ResultColumn{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
			if c.Source != nil {
				rc.Source = &snapshot.ColumnSource{Table: c.Source.Table, Column: c.Source.Column}
			}
			out.Result = append(out.Result, rc)
		}
	}
	for _, b := range a.Bindings {
		out.Bindings = append(out.Bindings, snapshot.Binding(b))
	}
	for _, p := range a.Problems {
		out.Problems = append(out.Problems, snapshot.Problem(p))
	}
	return out
}

// usedByOf is schema_get_table's usedBy of every table: the logics that
// touch it, by name.
func usedByOf(as map[string]*snapshot.Analysis) map[store.TableRef][]answer.TableUse {
	out := map[store.TableRef][]answer.TableUse{}
	for name, a := range as {
		for _, t := range a.Tables {
			k := store.TableRef{Connection: t.Connection, Name: t.Table}
			out[k] = append(out[k], answer.TableUse{Logic: name, Access: t.Access})
		}
	}
	for _, uses := range out {
		slices.SortFunc(uses, func(a, b answer.TableUse) int { return strings.Compare(a.Logic, b.Logic) })
	}
	return out
}

// logicProblemsOf counts the logics with problems.
func logicProblemsOf(as map[string]*snapshot.Analysis) int {
	n := 0
	for _, a := range as {
		if len(a.Problems) > 0 {
			n++
		}
	}
	return n
}

// stripUsedBy removes usedBy and usedByTotal wherever they are, a
// nextCursor after them kept, and leaves an answer without them alone.
func TestStripUsedBy(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"name":"a","usedBy":[{"logic":"x","access":"read"}]}`, `{"name":"a"}`},
		{`{"name":"a","usedBy":[{"logic":"],\"usedBy\":[","access":"read"}],"usedByTotal":123,"nextCursor":"c"}`, `{"name":"a","nextCursor":"c"}`},
		{`{"name":"a","comment":"\",\"usedBy\":[x"}`, `{"name":"a","comment":"\",\"usedBy\":[x"}`},
	} {
		if got := string(stripUsedBy([]byte(tc.in))); got != tc.want {
			t.Errorf("stripUsedBy(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
