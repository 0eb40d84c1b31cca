package pgoracle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// CompareCorpus loads the corpus and its committed truth and compares the
// analyser with them. It needs no PostgreSQL: TestTruth keeps the truth in
// step with PostgreSQL where one is installed.
func CompareCorpus(tb testing.TB, analyse Analyser) *Report {
	tb.Helper()
	dir, err := CorpusDir()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := LoadCorpus(dir)
	if err != nil {
		tb.Fatal(err)
	}
	truths := make([]*Truth, len(schemas))
	for i, s := range schemas {
		if truths[i], err = LoadTruth(s); err != nil {
			tb.Fatal(err)
		}
	}
	return Compare(schemas, truths, analyse)
}

// Compare scores the analyser against PostgreSQL's truth: every base
// logic's statement, result (names, types, sources, nullability), tables
// and bindings, and the problems of every logic under every mutated
// release. truths[i] is the truth of schemas[i].
func Compare(schemas []*Schema, truths []*Truth, analyse Analyser) *Report {
	r := newReport()
	for i, sc := range schemas {
		tr := truths[i]
		r.Schemas++
		if r.PostgresMajor == 0 {
			r.PostgresMajor = tr.PostgresMajor
		}
		for j := range sc.Snapshot.Logics {
			l := &sc.Snapshot.Logics[j]
			lt := tr.Logic(l.Name)
			if lt == nil {
				r.disagree(sc.Name, "base", l.Name, "truth", "", "no truth for the logic; run TestTruth -update")
				continue
			}
			r.Logics++
			a, ok := r.analyse(analyse, sc.Doc, sc.Name, "base", l.Name)
			if ok {
				r.scoreLogic(sc, tr, lt, a)
			}
		}
		for j := range sc.Mutations {
			m := &sc.Mutations[j]
			if j >= len(tr.Mutations) || tr.Mutations[j].Name != m.Name {
				r.disagree(sc.Name, m.Name, "", "truth", "", "no truth for the mutation; run TestTruth -update")
				continue
			}
			mu, err := m.Apply(sc.Snapshot)
			if err != nil {
				r.disagree(sc.Name, m.Name, "", "mutation", "", err.Error())
				continue
			}
			r.Mutations++
			doc := mu.Snapshot.Encode()
			verdicts := map[string]*Verdict{}
			for k := range tr.Mutations[j].Verdicts {
				v := &tr.Mutations[j].Verdicts[k]
				verdicts[v.Logic] = v
			}
			for k := range mu.Snapshot.Logics {
				name := mu.Snapshot.Logics[k].Name
				a, ok := r.analyse(analyse, doc, sc.Name, m.Name, name)
				if ok {
					r.scoreVerdict(sc.Name, m.Name, name, verdicts[name], a)
				}
			}
		}
	}
	return r
}

// analyse runs the analyser on one logic; a failure is a disagreement.
func (r *Report) analyse(analyse Analyser, doc []byte, schema, release, logic string) (*Analysis, bool) {
	b, err := analyse(doc, logic)
	var a *Analysis
	if err == nil {
		a, err = ParseAnalysis(b)
	}
	if !r.count("analyses", err == nil) {
		r.disagree(schema, release, logic, "analyses", "", "the analyser failed: "+err.Error())
		return nil, false
	}
	return a, true
}

// scoreLogic compares a base logic's analysis with PostgreSQL's answer.
func (r *Report) scoreLogic(sc *Schema, tr *Truth, lt *LogicTruth, a *Analysis) {
	at := func(aspect, got, want string) { r.disagree(sc.Name, "base", lt.Name, aspect, got, want) }
	if ok := a.Statement == lt.Statement; !r.count("statement", ok) {
		at("statement", a.Statement, lt.Statement)
	}
	if ok := len(a.Result) == len(lt.Result) && (a.Result == nil) == (lt.Result == nil); !r.count("result shape", ok) {
		at("result shape", describeResult(a.Result), describeTruthResult(lt.Result))
	}
	for i := 0; i < min(len(a.Result), len(lt.Result)); i++ {
		r.scoreColumn(sc.Name, lt.Name, i, tr, &a.Result[i], &lt.Result[i])
	}

	got, want := map[string]bool{}, map[string]bool{}
	for _, t := range a.Tables {
		got[t.Table] = got[t.Table] || t.Access == snapshot.AccessWrite || t.Access == snapshot.AccessReadWrite
	}
	for _, t := range lt.Tables {
		want[t.Table] = t.Access == snapshot.AccessWrite || t.Access == snapshot.AccessReadWrite
	}
	if ok := sameKeys(got, want); !r.count("tables", ok) {
		at("tables", strings.Join(sortedKeys(got), ","), strings.Join(sortedKeys(want), ","))
	}
	for t, w := range want {
		if g, ok := got[t]; ok && !r.count("tables written", g == w) {
			at("tables written", fmt.Sprintf("%s written=%v", t, g), fmt.Sprintf("%s written=%v", t, w))
		}
	}

	params := map[string]string{}
	for _, p := range lt.Params {
		params[p.Name] = p.Type
	}
	enums := toSet(tr.Enums)
	for _, b := range a.Bindings {
		pgType, ok := params[b.Param]
		col := columnOf(sc.Snapshot, b.Table, b.Column)
		if !ok || col == nil {
			r.count("bindings", false)
			at("bindings", b.Param+" -> "+b.Table+"."+b.Column, "a placeholder of the SQL and a column of the release")
			continue
		}
		colType := normType(col.Type, tr.Types)
		colKind, paramKind := pgKind(colType, enums), pgKind(pgType, enums)
		if elem, isArray := strings.CutPrefix(paramKind, "array:"); isArray && !strings.HasPrefix(colKind, "array:") {
			paramKind = elem // col = ANY (:param)
		}
		if !r.count("bindings", colKind == paramKind) {
			at("bindings", fmt.Sprintf("%s -> %s.%s (%s)", b.Param, b.Table, b.Column, colType), "a column of the type PostgreSQL gives the placeholder: "+pgType)
		}
	}

	if len(a.Problems) > 0 {
		r.FalseProblems++
		at("false problem", problemCodes(a.Problems), "none: PostgreSQL prepares and runs the logic")
	}
	r.count("no false problem", len(a.Problems) == 0)
}

// scoreColumn compares one result column.
func (r *Report) scoreColumn(schema, logic string, i int, tr *Truth, a *AnalysisColumn, c *ColumnTruth) {
	at := func(aspect, got, want string) {
		r.disagree(schema, "base", logic, fmt.Sprintf("%s #%d", aspect, i+1), got, want)
	}
	if !r.count("names", a.Name == c.Name) {
		at("names", a.Name, c.Name)
	}
	switch got, want := normType(a.Type, tr.Types), c.Type; {
	case strings.EqualFold(strings.TrimSpace(a.Type), "unknown") || a.Type == "":
		r.Unknown++
		r.count("types", false)
		r.count("types (no modifier)", false)
	default:
		exact := got == want
		r.count("types", exact)
		loose := baseType(got) == baseType(want)
		r.count("types (no modifier)", loose)
		if !exact {
			at("types", fmt.Sprintf("%s (%s)", a.Type, got), want)
		}
	}
	switch {
	case c.Source == nil && a.Source == nil:
	case c.Source == nil:
		r.SourceExtra++
	case a.Source == nil:
		r.count("sources", false)
		at("sources", "none", c.Source.Table+"."+c.Source.Column)
	default:
		if !r.count("sources", *a.Source == *c.Source) {
			at("sources", a.Source.Table+"."+a.Source.Column, c.Source.Table+"."+c.Source.Column)
		}
	}
	nullable := a.Nullable == nil || *a.Nullable
	switch {
	case !nullable && c.NullSeen:
		r.NullDefects++
		r.count("nullability", false)
		at("nullability", "nullable false", "NULL seen when it ran")
	case nullable && !c.NullSeen:
		r.NullImprecise++
		r.count("nullability", true)
	default:
		r.count("nullability", true)
	}
}
