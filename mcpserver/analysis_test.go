package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/store"
)

var (
	analyzerOnce sync.Once
	analyzerTest *analysis.Analyzer
	analyzerErr  error
)

// testAnalyzer is one Analyzer shared by the package's tests, its
// compilation cache in the system's temporary folder: releases are
// written as `hubsnap snapshot sync` writes them, analysed.
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

// putAnalysed stores snap with its logics analysed.
func putAnalysed(tb testing.TB, st *store.Store, snap *store.Snapshot, file store.FileState, makeCurrent bool) {
	tb.Helper()
	err := st.WriteRelease(context.Background(), store.WriteOptions{MakeCurrent: makeCurrent, Analyzer: testAnalyzer(tb)},
		func(w *store.ReleaseWriter) error { return fillRelease(w, snap, file) })
	if err != nil {
		tb.Fatalf("WriteRelease(%s): %v", snap.Release.ID, err)
	}
}

// fillRelease gives w every part of snap.
func fillRelease(w *store.ReleaseWriter, snap *store.Snapshot, file store.FileState) error {
	w.Release(snap.Release, snap.Origin)
	w.File(file)
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
}

// analyses analyses every logic of snap in memory, with the whole release
// as its catalog: what the answers, composed by SQL from the index's
// rows, must say. Nil when snap has no postgres connection.
func analyses(tb testing.TB, snap *store.Snapshot) map[string]*analysis.Analysis {
	tb.Helper()
	s := &analysis.Schema{}
	postgres := false
	for _, c := range snap.Connections {
		s.Connections = append(s.Connections, analysis.Connection{Name: c.Name, Engine: c.Engine})
		postgres = postgres || analysis.IsPostgres(c.Engine)
	}
	if !postgres {
		return nil
	}
	for _, t := range snap.Tables {
		at := analysis.Table{Connection: t.Connection, Name: t.Name, PrimaryKey: t.PrimaryKey}
		for _, c := range t.Columns {
			at.Columns = append(at.Columns, analysis.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable,
				HasDefault: c.Default != "", Enum: c.Enum})
		}
		for _, ix := range t.Indexes {
			if ix.Unique {
				at.Unique = append(at.Unique, ix.Columns)
			}
		}
		s.Tables = append(s.Tables, at)
	}
	cat := analysis.NewCatalog(s)
	a := testAnalyzer(tb)
	out := map[string]*analysis.Analysis{}
	for _, l := range snap.Logics {
		var params []analysis.Param
		for _, p := range l.Params {
			params = append(params, analysis.Param{Name: p.Name, Type: p.Type, Required: p.Required})
		}
		res := a.Analyze(context.Background(), cat, analysis.Logic{Name: l.Name, SQL: l.SQL, Params: params})
		out[l.Name] = &res
	}
	return out
}

// wantAnalysis is logic_get's analysis of a, whole (SPEC §11).
func wantAnalysis(a *analysis.Analysis) *LogicAnalysis {
	out := &LogicAnalysis{Statement: a.Statement, Tables: []TableAccess{}, Bindings: []Binding{}, Problems: []Problem{},
		Unjudged: a.Unjudged}
	for _, t := range a.Tables {
		out.Tables = append(out.Tables, TableAccess(t))
	}
	if a.Result != nil {
		out.Result = []ResultColumn{}
		for _, c := range a.Result {
			rc := ResultColumn{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
			if c.Source != nil {
				rc.Source = &ColumnSource{Table: c.Source.Table, Column: c.Source.Column}
			}
			out.Result = append(out.Result, rc)
		}
	}
	for _, b := range a.Bindings {
		out.Bindings = append(out.Bindings, Binding(b))
	}
	for _, p := range a.Problems {
		out.Problems = append(out.Problems, Problem(p))
	}
	return out
}

// usedByOf is schema_get_table's usedBy of every table: the logics that
// touch it, by name.
func usedByOf(as map[string]*analysis.Analysis) map[store.TableRef][]TableUse {
	out := map[store.TableRef][]TableUse{}
	for name, a := range as {
		for _, t := range a.Tables {
			k := store.TableRef{Connection: t.Connection, Name: t.Table}
			out[k] = append(out[k], TableUse{Logic: name, Access: t.Access})
		}
	}
	for _, uses := range out {
		slices.SortFunc(uses, func(a, b TableUse) int { return strings.Compare(a.Logic, b.Logic) })
	}
	return out
}

// logicProblemsOf counts the logics with problems.
func logicProblemsOf(as map[string]*analysis.Analysis) int {
	n := 0
	for _, a := range as {
		if len(a.Problems) > 0 {
			n++
		}
	}
	return n
}

// usedBy names logics: a token with table:read but not logic:read gets
// schema_get_table (and its resource) without it, as schema_diff leaves
// out logics; one with both gets it whole.
func TestHTTPUsedByFollowsScopes(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"tables", []string{"table:read"}},
		tokenSpec{"both", []string{"table:read", "logic:read"}})
	tables := env.mustConnect(t, env.secrets["tables"])
	both := env.mustConnect(t, env.secrets["both"])
	args := map[string]any{"table": "purchases"}
	whole := toolText(call(t, both, "schema_get_table", args))
	if !strings.Contains(whole, `"usedBy":[{"logic":"purchase_item","access":"write"}]`) {
		t.Fatalf("table:read + logic:read: no usedBy in %s", whole)
	}
	got := toolText(call(t, tables, "schema_get_table", args))
	if want := strings.Replace(whole, `,"usedBy":[{"logic":"purchase_item","access":"write"}]`, "", 1); got != want {
		t.Errorf("table:read only:\ngot  %s\nwant %s", got, want)
	}
	res, err := tables.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hubsnap://tables/main/purchases"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Contents[0].Text; strings.Contains(text, "usedBy") {
		t.Errorf("table resource with table:read only: %s", text)
	}
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
