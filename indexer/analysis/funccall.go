package analysis

import "github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"

// srfFn types a set-returning function of one column in a result list
// as setReturning types it in FROM. It is nullable whatever it returns:
// beside a longer set-returning function its rows run out as NULLs.
func srfFn(name string) fn {
	return func(a []typ) (typ, nulls, bool) {
		cols, _, ok := setReturning(name, a)
		if !ok || len(cols) != 1 {
			return tUnknown, nullable, false
		}
		return cols[0].t, nullable, true
	}
}

func concatWS(a []typ) (typ, nulls, bool) { return tText, strict, true }

func formatFn(a []typ) (typ, nulls, bool) { return tText, strict, true }

// substringFn: substring(text FROM pattern) is NULL when nothing matches.
func substringFn(a []typ) (typ, nulls, bool) {
	for _, t := range a[min(1, len(a)):] {
		if !t.isInteger() {
			return tText, nullable, true
		}
	}
	return tText, strict, true
}

// lengthFn: length of a string is integer; of anything else, not modelled.
func lengthFn(a []typ) (typ, nulls, bool) {
	if len(a) == 1 && (a[0].isString() || a[0].lit || a[0].base == "bytea") {
		return tInt, strict, true
	}
	return tUnknown, strict, false
}

// roundFn: round/ceil/floor/trunc keep numeric and double precision; an
// integer or real goes to double precision; round(x, n) is numeric.
func roundFn(a []typ) (typ, nulls, bool) {
	switch {
	case len(a) == 2:
		return tNumeric, strict, true
	case len(a) != 1:
		return tUnknown, strict, false
	case a[0].base == "numeric":
		return tNumeric, strict, true
	case a[0].isNumeric():
		return tDouble, strict, true
	}
	return tUnknown, strict, false
}

// dateTrunc keeps timestamp, timestamp with time zone and interval; a date
// goes to timestamp with time zone.
func dateTrunc(a []typ) (typ, nulls, bool) {
	if len(a) == 3 {
		return tTimestamptz, strict, true
	}
	if len(a) != 2 {
		return tUnknown, strict, false
	}
	switch a[1].base {
	case "timestamp without time zone":
		return tTimestamp, strict, true
	case "timestamp with time zone", "date":
		return tTimestamptz, strict, true
	case "interval":
		return tInterval, strict, true
	}
	return tUnknown, strict, false
}

func sumFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 {
		return tUnknown, nullable, false
	}
	switch a[0].base {
	case "smallint", "integer":
		return tBigint, nullable, true
	case "bigint", "numeric":
		return tNumeric, nullable, true
	case "real", "double precision", "interval", "money":
		return a[0].plain(), nullable, true
	}
	return tUnknown, nullable, false
}

func avgFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 {
		return tUnknown, nullable, false
	}
	switch a[0].base {
	case "smallint", "integer", "bigint", "numeric":
		return tNumeric, nullable, true
	case "real", "double precision":
		return tDouble, nullable, true
	case "interval":
		return tInterval, nullable, true
	}
	return tUnknown, nullable, false
}

func statFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 {
		return tUnknown, nullable, false
	}
	switch a[0].base {
	case "smallint", "integer", "bigint", "numeric":
		return tNumeric, nullable, true
	case "real", "double precision":
		return tDouble, nullable, true
	}
	return tUnknown, nullable, false
}

// minMaxFn: min and max return their input type, except that character
// varying goes through text's and character's through bpchar's.
func minMaxFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 || !a[0].known() {
		return tUnknown, nullable, false
	}
	t := a[0]
	switch {
	case t.base == "character varying":
		return tText, nullable, true
	case t.base == "bpchar":
		return tBpchar, nullable, true
	case t.isArray():
		return t.plain(), nullable, true
	}
	if ti, ok := t.info(); !ok || ti.cat == 'U' || ti.cat == 'B' || ti.cat == 'P' {
		return tUnknown, nullable, false // no max(uuid), max(json), max(boolean), ...
	}
	return t.plain(), nullable, true
}

func stringAgg(a []typ) (typ, nulls, bool) {
	if len(a) == 2 && a[0].base == "bytea" {
		return tBytea, nullable, true
	}
	return tText, nullable, true
}

func arrayAgg(a []typ) (typ, nulls, bool) {
	if len(a) != 1 || !a[0].known() {
		return tUnknown, nullable, false
	}
	return a[0].plain().array(), nullable, true
}

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
		if name == "concat_ws" || name == "format" {
			e.notNull = len(args) > 0 && args[0].notNull
		}
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
