package analysis

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Limits of the analysis of one logic, past which it is left unjudged.
const (
	maxDepth = 400       // nesting of expressions and queries
	maxSteps = 2_000_000 // nodes visited
)

// errAbort stops an analysis; the reason is in state.abort.
var errAbort = errors.New("analysis stopped")

// state is the analysis of one logic.
type state struct {
	ctx      context.Context
	rel      *Tables
	rw       *Rewrite
	declared map[string]snapshot.Param

	problems []snapshot.Problem
	seen     map[snapshot.Problem]bool // problems, to add each once
	partial  string                    // the first part left unjudged
	abort    string                    // why the analysis stopped

	tables   []*access
	tableIdx map[*tableInfo]*access
	bindings []bindingAt

	depth, steps int

	sublinkNames map[*pgparse.SubLink]string // the first column of each scalar subquery

	// Connections of bare table names found in several connections.
	multi   map[string][]*tableInfo // bare names with several candidates
	single  map[string]bool         // connections of names with one candidate
	chosen  map[string]*tableInfo   // the second pass's choices
	deferTo bool                    // the first pass met a name in several connections
}

type access struct {
	t           *tableInfo
	read, write bool
	pos         int
}

type bindingAt struct {
	b      snapshot.Binding
	pos    int
	param  int
	col    *srcCol
	assign bool // assigned rather than compared
	bare   bool // the placeholder alone (no cast)
}

// problem records a certain problem at a byte offset of the rewritten SQL
// (-1: no position).
func (s *state) problem(code string, pos int, format string, args ...any) {
	p := snapshot.Problem{Code: code, Message: fmt.Sprintf(format, args...)}
	if pos >= 0 {
		p.Position = s.rw.Position(pos)
	}
	if s.seen == nil {
		s.seen = make(map[snapshot.Problem]bool)
	}
	if s.seen[p] {
		return // once each: a logic of 48 KiB can have thousands
	}
	s.seen[p] = true
	s.problems = append(s.problems, p)
}

// unjudged notes a part of the logic the analysis did not judge.
func (s *state) unjudged(format string, args ...any) {
	if s.partial == "" {
		s.partial = fmt.Sprintf(format, args...)
	}
}

// enter guards recursion depth, the step budget and the deadline; leave
// undoes enter's depth.
func (s *state) enter() {
	s.depth++
	s.steps++
	if s.depth > maxDepth {
		s.stop("nested more than %d levels deep", maxDepth)
	}
	if s.steps > maxSteps {
		s.stop("more than %d nodes", maxSteps)
	}
	if s.steps&1023 == 0 && s.ctx.Err() != nil {
		s.stop("timed out")
	}
}

func (s *state) leave() { s.depth-- }

func (s *state) stop(format string, args ...any) {
	s.abort = fmt.Sprintf(format, args...)
	panic(errAbort)
}

// touch records an access to a table.
func (s *state) touch(t *tableInfo, read, write bool, pos int) {
	a := s.tableIdx[t]
	if a == nil {
		a = &access{t: t, pos: pos}
		s.tableIdx[t] = a
		s.tables = append(s.tables, a)
	}
	a.read = a.read || read
	a.write = a.write || write
	a.pos = min(a.pos, pos)
}

// placeholder returns the name of $n when it is one of the logic's
// placeholders.
func (s *state) placeholder(n int) (string, bool) {
	if n <= s.rw.Positional || n > len(s.rw.Names) {
		return "", false
	}
	return s.rw.Names[n-1], true
}

// bind records a placeholder compared with or assigned to a column.
func (s *state) bind(p expr, c expr, assign bool, pos int) {
	n := p.param
	bare := n > 0
	if n == 0 {
		n = p.castParam
	}
	if n == 0 || c.src == nil {
		return
	}
	name, ok := s.placeholder(n)
	if !ok {
		return
	}
	info := c.src.info()
	s.bindings = append(s.bindings, bindingAt{
		b:   snapshot.Binding{Param: name, Table: c.src.table.name, Column: info.name},
		pos: pos, param: n, col: c.src, assign: assign, bare: bare,
	})
}

// finish turns the state into the Analysis fields.
func (s *state) finish(a *snapshot.Analysis) {
	sort.SliceStable(s.tables, func(i, j int) bool { return s.tables[i].pos < s.tables[j].pos })
	a.Tables = make([]snapshot.TableAccess, 0, len(s.tables))
	for _, t := range s.tables {
		acc := snapshot.AccessRead
		switch {
		case t.read && t.write:
			acc = snapshot.AccessReadWrite
		case t.write:
			acc = snapshot.AccessWrite
		}
		a.Tables = append(a.Tables, snapshot.TableAccess{Table: t.t.name, Connection: t.t.conn, Access: acc})
	}
	sort.SliceStable(s.bindings, func(i, j int) bool { return s.bindings[i].pos < s.bindings[j].pos })
	a.Bindings = make([]snapshot.Binding, 0, len(s.bindings))
	seen := map[snapshot.Binding]bool{}
	clash := map[snapshot.Binding]bool{}
	for _, b := range s.bindings {
		if !seen[b.b] {
			seen[b.b] = true
			a.Bindings = append(a.Bindings, b.b)
		}
		if !b.bare || clash[b.b] {
			continue
		}
		decl, ok := s.declared[b.b.Param]
		if !ok {
			continue
		}
		info := b.col.info()
		pk, ck := paramKind(decl.Type), typeKind(info.t)
		if paramTypeClash(pk, ck, b.assign) {
			clash[b.b] = true
			verb := "compared with"
			if b.assign {
				verb = "assigned to"
			}
			s.problem(snapshot.CodeParamType, b.pos, "param %q is declared %q (%s) but is %s column %q of type %q (%s)",
				b.b.Param, decl.Type, pk, verb, info.name, info.snapType, ck)
		}
	}
}

// paramProblems reports placeholders without a declared param and
// declared params the SQL never uses.
func (s *state) paramProblems(l snapshot.Logic) {
	used := map[string]bool{}
	for _, p := range s.rw.Placeholders {
		used[p.Name] = true
		if _, ok := s.declared[p.Name]; !ok {
			s.problem(snapshot.CodeUndeclaredParam, s.rewrittenOffset(p.Start), "placeholder :%s has no declared param", p.Name)
		}
	}
	for _, p := range l.Params {
		if !used[p.Name] {
			s.problem(snapshot.CodeUnusedParam, -1, "param %q is declared but the SQL never uses it", p.Name)
		}
	}
}

// rewrittenOffset maps an offset of the original SQL to the rewritten one
// (placeholder starts only), so problem positions go through one path.
func (s *state) rewrittenOffset(orig int) int {
	delta := 0
	for _, e := range s.rw.edits {
		if e.origStart == orig {
			return e.rewStart
		}
		if e.origEnd <= orig {
			delta = e.rewEnd - e.origEnd
		}
	}
	return orig + delta
}

// dq quotes a name as PostgreSQL's messages do.
func dq(s string) string { return `"` + s + `"` }

// missingFromEntry reports a qualifier that names no FROM item, with
// PostgreSQL's message: an aliased table named by its own name is an
// "invalid reference".
func (s *state) missingFromEntry(lv *level, q string, pos int) {
	for l := lv; l != nil; l = l.parent {
		for _, it := range l.items {
			if it.table != nil && it.table.name == q {
				s.problem(snapshot.CodeUnknownTable, pos, "invalid reference to FROM-clause entry for table %s", dq(q))
				return
			}
		}
	}
	s.problem(snapshot.CodeUnknownTable, pos, "missing FROM-clause entry for table %s", dq(q))
}

// quoteIdent writes an identifier as the logic could have written it.
func quoteIdent(s string) string {
	if isPlainWord(s) && strings.ToLower(s) == s && !strings.ContainsRune(s, '$') {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
