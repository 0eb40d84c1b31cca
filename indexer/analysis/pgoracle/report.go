package pgoracle

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Report is how an analysis agrees with PostgreSQL over the corpus.
type Report struct {
	PostgresMajor int
	Schemas       int
	Logics        int // base logics compared
	Mutations     int // mutated releases compared
	// Figures counts, per aspect, the comparisons made and those that
	// agree.
	Figures map[string]*Figure
	// FalseProblems counts the logics PostgreSQL accepts that the analysis
	// gives a problem, base and mutated releases together: the worst
	// defect.
	FalseProblems int
	// NullDefects counts result columns the analysis calls not nullable
	// where a run returned NULL; NullImprecise those it calls nullable
	// where no run did.
	NullDefects, NullImprecise int
	// Unknown counts result columns whose type the analysis leaves
	// unknown (counted as not agreeing in "types").
	Unknown int
	// SourceExtra counts result columns the analysis gives a source where
	// PostgreSQL traces none (an expression): not counted as wrong.
	SourceExtra int
	// Misses counts expected problems the analysis does not report;
	// WrongCode those where it reports another code instead.
	Misses, WrongCode int
	// Unjudged counts logics PostgreSQL rejects with a SQLSTATE that has
	// no §11 code; Flagged how many of them the analysis gave a problem.
	Unjudged, Flagged int
	Disagreements     []Disagreement
}

// Figure is one aspect's count.
type Figure struct{ Agree, Compared int }

// Disagreement is one place where the analysis and PostgreSQL differ.
type Disagreement struct {
	Schema, Release, Logic, Aspect, Got, Want string
}

// figureOrder is the order Format prints the figures in.
var figureOrder = []string{
	"analyses", "statement", "result shape", "names", "types", "types (no modifier)", "sources",
	"nullability", "tables", "tables written", "bindings", "no false problem",
	"problems found", "PARAM_TYPE (may)", "positions",
}

func newReport() *Report { return &Report{Figures: map[string]*Figure{}} }

// count adds one comparison of an aspect and returns ok.
func (r *Report) count(aspect string, ok bool) bool {
	f := r.Figures[aspect]
	if f == nil {
		f = &Figure{}
		r.Figures[aspect] = f
	}
	f.Compared++
	if ok {
		f.Agree++
	}
	return ok
}

func (r *Report) disagree(schema, release, logic, aspect, got, want string) {
	r.Disagreements = append(r.Disagreements, Disagreement{schema, release, logic, aspect, got, want})
}

// Agreement is an aspect's share of agreeing comparisons, 1 when nothing
// was compared.
func (r *Report) Agreement(aspect string) float64 {
	f := r.Figures[aspect]
	if f == nil || f.Compared == 0 {
		return 1
	}
	return float64(f.Agree) / float64(f.Compared)
}

// scoreVerdict compares the problems of one logic of a mutated release
// with PostgreSQL's verdict (nil: PostgreSQL accepts it and no problem is
// expected).
func (r *Report) scoreVerdict(schema, release, logic string, v *Verdict, a *Analysis) {
	at := func(aspect, got, want string) { r.disagree(schema, release, logic, aspect, got, want) }
	got := map[string]*Problem{}
	for i := range a.Problems {
		if _, dup := got[a.Problems[i].Code]; !dup {
			got[a.Problems[i].Code] = &a.Problems[i]
		}
	}
	if v == nil {
		if !r.count("no false problem", len(got) == 0) {
			r.FalseProblems++
			at("false problem", problemCodes(a.Problems), "none: PostgreSQL accepts the logic")
		}
		return
	}
	verdict := "PostgreSQL accepts it"
	if v.SQLState != "" {
		verdict = fmt.Sprintf("%s %s: %s", v.Phase, v.SQLState, v.Message)
	}
	for _, code := range v.Expect {
		p, ok := got[code]
		if !r.count("problems found", ok) {
			r.Misses++
			if len(got) > 0 {
				r.WrongCode++
			}
			at("missed problem", problemCodes(a.Problems), code+" ("+verdict+")")
			continue
		}
		if code != snapshot.CodeUndeclaredParam && code != snapshot.CodeUnusedParam && v.Position > 0 && p.Position > 0 {
			if !r.count("positions", p.Position == v.Position) {
				at("positions", fmt.Sprintf("%s at %d", code, p.Position), fmt.Sprintf("%d", v.Position))
			}
		}
	}
	for _, code := range v.May {
		_, ok := got[code]
		r.count(code+" (may)", ok)
	}
	if v.Rejected() {
		if len(v.Expect) == 0 {
			r.Unjudged++
			if len(got) > 0 {
				r.Flagged++
			}
		}
		return // PostgreSQL stops at its first error: other problems may be right
	}
	var extra []Problem
	for _, p := range a.Problems {
		if !slices.Contains(v.Expect, p.Code) && !slices.Contains(v.May, p.Code) {
			extra = append(extra, p)
		}
	}
	if !r.count("no false problem", len(extra) == 0) {
		r.FalseProblems++
		at("false problem", problemCodes(extra), "only "+strings.Join(append(v.Expect, v.May...), ", ")+": "+verdict)
	}
}

// Format writes the agreement table, the other counts, and up to max
// disagreements (all when max < 0).
func (r *Report) Format(w io.Writer, max int) {
	fmt.Fprintf(w, "pgoracle: agreement with PostgreSQL %d over %d schemas: %d logics, %d mutated releases\n",
		r.PostgresMajor, r.Schemas, r.Logics, r.Mutations)
	fmt.Fprintf(w, "%-22s %8s %8s %8s\n", "aspect", "agree", "compared", "percent")
	names := slices.Clone(figureOrder)
	for name := range r.Figures {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if f := r.Figures[name]; f != nil {
			fmt.Fprintf(w, "%-22s %8d %8d %7.1f%%\n", name, f.Agree, f.Compared, 100*r.Agreement(name))
		}
	}
	fmt.Fprintf(w, "false problems: %d (logics PostgreSQL accepts, flagged)\n", r.FalseProblems)
	fmt.Fprintf(w, "nullability: %d defects (nullable false, NULL seen), %d imprecise (nullable, no NULL seen)\n", r.NullDefects, r.NullImprecise)
	fmt.Fprintf(w, "types left unknown: %d; sources given for expressions: %d\n", r.Unknown, r.SourceExtra)
	fmt.Fprintf(w, "problems missed: %d (%d with another code); rejected without a §11 code: %d (%d flagged)\n",
		r.Misses, r.WrongCode, r.Unjudged, r.Flagged)
	if len(r.Disagreements) == 0 {
		return
	}
	fmt.Fprintf(w, "%d disagreements:\n", len(r.Disagreements))
	for i, d := range r.Disagreements {
		if max >= 0 && i >= max {
			fmt.Fprintf(w, "  ... %d more\n", len(r.Disagreements)-max)
			break
		}
		fmt.Fprintf(w, "  %s/%s %s: %s: got %s, want %s\n", d.Schema, d.Release, d.Logic, d.Aspect, orNone(d.Got), d.Want)
	}
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// problemCodes lists the codes of problems.
func problemCodes(ps []Problem) string {
	codes := make([]string, len(ps))
	for i, p := range ps {
		codes[i] = p.Code
	}
	return strings.Join(codes, ",")
}

func describeResult(cols []AnalysisColumn) string {
	if cols == nil {
		return "null"
	}
	return fmt.Sprintf("%d columns", len(cols))
}

func describeTruthResult(cols []ColumnTruth) string {
	if cols == nil {
		return "null"
	}
	return fmt.Sprintf("%d columns", len(cols))
}

// columnOf finds a column of the release.
func columnOf(s *Snapshot, table, column string) *Column {
	if t := s.Table(table); t != nil {
		return t.Column(column)
	}
	return nil
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
