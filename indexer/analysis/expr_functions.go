package analysis

import "github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"

// funcCall analyses a function call: its arguments, ORDER BY, FILTER and
// OVER parts, and its type when the function is one the analysis knows.
func (s *state) funcCall(lv *level, f *pgparse.FuncCall) expr {
	names := strs(f.Funcname)
	name := names[len(names)-1]
	qualified := len(names) > 1
	builtin := !qualified || (len(names) == 2 && names[0] == "pg_catalog")
	args := s.exprs(lv, f.Args)
	for _, o := range f.AggOrder {
		if o.SortBy != nil {
			s.expr(lv, o.SortBy.Node)
		}
	}
	if f.AggFilter != nil {
		s.expr(lv, f.AggFilter)
	}
	if f.Over != nil {
		s.windowDef(lv, f.Over)
	}
	if !builtin || f.FuncVariadic {
		return expr{}
	}
	if f.AggStar {
		if name == "count" {
			return expr{t: tBigint, notNull: true}
		}
		return expr{}
	}
	ts := types(args)
	var rule fn
	switch {
	case f.Over != nil:
		rule = windowFunctions[name]
		if rule == nil && !f.AggWithinGroup {
			rule = aggregates[name]
		}
	case f.AggWithinGroup:
	default:
		rule = aggregates[name]
		if rule == nil {
			rule = functions[name]
		}
		if rule == nil && setReturningFunctions[name] != nil {
			rule = srfFn(name)
		}
	}
	if rule == nil {
		return expr{}
	}
	t, n, ok := rule(ts)
	if !ok {
		return expr{}
	}
	e := expr{t: t}
	switch n {
	case never:
		e.notNull = true
	case strict:
		e.notNull = true
		for _, a := range args {
			e.notNull = e.notNull && a.notNull
		}
	case strictFirst:
		e.notNull = len(args) > 0 && args[0].notNull
	}
	return e
}

// windowDef analyses an inline window definition.
func (s *state) windowDef(lv *level, w *pgparse.WindowDef) {
	s.exprs(lv, w.PartitionClause)
	for _, o := range w.OrderClause {
		if o.SortBy != nil {
			s.expr(lv, o.SortBy.Node)
		}
	}
	s.expr(lv, w.StartOffset)
	s.expr(lv, w.EndOffset)
}
