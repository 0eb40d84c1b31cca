package analysis

import "github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"

// aExpr analyses an operator expression (A_Expr): its type, whether it is
// NULL, and the placeholders it binds to columns.
func (s *state) aExpr(lv *level, a *pgparse.AExpr) expr {
	op := ""
	if len(a.Name) > 0 {
		names := strs(a.Name)
		op = names[len(names)-1]
		if len(names) == 2 && names[0] != "pg_catalog" {
			op = "" // OPERATOR(schema.op): not modelled
		}
	}
	switch a.Kind {
	case "AEXPR_OP":
		if isComparison(op) && a.Lexpr != nil && a.Rexpr != nil && a.Lexpr.RowExpr != nil && a.Rexpr.RowExpr != nil &&
			len(a.Lexpr.RowExpr.Args) == len(a.Rexpr.RowExpr.Args) {
			// (a, b) = (:x, :y): each placeholder meets its column.
			nn := true
			for i := range a.Lexpr.RowExpr.Args {
				l, r := s.expr(lv, a.Lexpr.RowExpr.Args[i]), s.expr(lv, a.Rexpr.RowExpr.Args[i])
				s.bindPair(l, r, a.Location)
				nn = nn && l.notNull && r.notNull
			}
			return expr{t: tBool, notNull: nn}
		}
		if a.Lexpr == nil {
			r := s.expr(lv, a.Rexpr)
			t := prefixOp(op, r.t)
			return expr{t: t, notNull: r.notNull && t.known()}
		}
		l, r := s.expr(lv, a.Lexpr), s.expr(lv, a.Rexpr)
		if isComparison(op) {
			s.bindPair(l, r, a.Location)
		}
		t, strict := binop(op, l, r)
		return expr{t: t, notNull: strict && l.notNull && r.notNull}
	case "AEXPR_OP_ANY", "AEXPR_OP_ALL":
		l, r := s.expr(lv, a.Lexpr), s.expr(lv, a.Rexpr)
		if isComparison(op) && l.src != nil && r.param > 0 {
			s.bind(r, l, false, r.paramPos)
			s.bindings[len(s.bindings)-1].bare = false // an array of values
		}
		return expr{t: tBool}
	case "AEXPR_DISTINCT", "AEXPR_NOT_DISTINCT":
		l, r := s.expr(lv, a.Lexpr), s.expr(lv, a.Rexpr)
		s.bindPair(l, r, a.Location)
		return expr{t: tBool, notNull: true}
	case "AEXPR_NULLIF":
		l, _ := s.expr(lv, a.Lexpr), s.expr(lv, a.Rexpr)
		t := l.t
		if t.base == "character varying" {
			t = tText // NULLIF compares with text's =, and returns its left input as text
		} else if !t.lit {
			t = t.plain()
		} else {
			t = tUnknown
		}
		return expr{t: t}
	case "AEXPR_IN":
		l := s.expr(lv, a.Lexpr)
		nn := l.notNull
		if a.Rexpr != nil && a.Rexpr.List != nil {
			for _, it := range a.Rexpr.List.Items {
				e := s.expr(lv, it)
				nn = nn && e.notNull
				s.bindPair(l, e, a.Location)
			}
		} else {
			s.expr(lv, a.Rexpr)
			nn = false
		}
		return expr{t: tBool, notNull: nn}
	case "AEXPR_LIKE", "AEXPR_ILIKE", "AEXPR_SIMILAR":
		l, r := s.expr(lv, a.Lexpr), s.expr(lv, a.Rexpr)
		if a.Kind != "AEXPR_SIMILAR" {
			s.bindLike(l, r)
		}
		return expr{t: tBool, notNull: l.notNull && r.notNull}
	case "AEXPR_BETWEEN", "AEXPR_NOT_BETWEEN", "AEXPR_BETWEEN_SYM", "AEXPR_NOT_BETWEEN_SYM":
		l := s.expr(lv, a.Lexpr)
		nn := l.notNull
		if a.Rexpr != nil && a.Rexpr.List != nil {
			for _, it := range a.Rexpr.List.Items {
				e := s.expr(lv, it)
				nn = nn && e.notNull
				s.bindPair(l, e, a.Location)
			}
		}
		return expr{t: tBool, notNull: nn}
	}
	s.expr(lv, a.Lexpr)
	s.expr(lv, a.Rexpr)
	s.unjudged("the operator kind %s is not analysed", a.Kind)
	return expr{}
}

// isComparison reports the operators that compare a value with a column.
func isComparison(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		return true
	}
	return false
}

// bindPair binds a placeholder on one side to a column on the other.
func (s *state) bindPair(l, r expr, pos int) {
	if l.src != nil && (r.param > 0 || r.castParam > 0) {
		s.bind(r, l, false, r.paramPos)
	} else if r.src != nil && (l.param > 0 || l.castParam > 0) {
		s.bind(l, r, false, l.paramPos)
	}
}

// bindLike binds a LIKE pattern placeholder to its column, without a
// type check (a pattern is text whatever the column).
func (s *state) bindLike(l, r expr) {
	if l.src != nil && (r.param > 0 || r.castParam > 0) {
		s.bind(r, l, false, r.paramPos)
		s.bindings[len(s.bindings)-1].bare = false
	}
}

// prefixOp types a prefix operator.
func prefixOp(op string, t typ) typ {
	switch op {
	case "-", "+":
		if t.isNumeric() || t.base == "interval" {
			return t.plain()
		}
	case "~":
		if t.isInteger() {
			return t.plain()
		}
	case "|/", "||/":
		if t.isNumeric() {
			return tDouble
		}
	case "@":
		if t.isNumeric() {
			return t.plain()
		}
	}
	return tUnknown
}

// binop types an infix operator; strict reports that it is NULL only when
// an operand is.
func binop(op string, l, r expr) (t typ, strict bool) {
	lt, rt := l.t, r.t
	if l.param > 0 {
		lt = tUnknown
	}
	if r.param > 0 {
		rt = tUnknown
	}
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=",
		"~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*",
		"@>", "<@", "&&", "?", "?|", "?&", "@?", "@@", "^@", "-|-", "&<", "&>":
		return tBool, true
	case "||":
		t := concatType(lt, rt)
		return t, t.known()
	case "->":
		if lt.isJSON() {
			return lt.plain(), false
		}
	case "->>":
		if lt.isJSON() {
			return tText, false
		}
	case "#>":
		if lt.isJSON() {
			return lt.plain(), false
		}
	case "#>>":
		if lt.isJSON() {
			return tText, false
		}
	case "#-":
		if lt.base == "jsonb" {
			return tJSONB, true
		}
	case "+", "-", "*", "/", "%":
		if op == "-" && lt.base == "jsonb" {
			return tJSONB, true
		}
		t := arith(op, lt, rt)
		return t, t.known()
	case "^":
		if lt.isNumeric() || rt.isNumeric() {
			if lt.base == "numeric" || rt.base == "numeric" {
				if (lt.isNumeric() || lt.lit) && (rt.isNumeric() || rt.lit) && lt.base != "real" && lt.base != "double precision" && rt.base != "real" && rt.base != "double precision" {
					return tNumeric, true
				}
				return tUnknown, true
			}
			if (lt.isNumeric() || lt.lit) && (rt.isNumeric() || rt.lit) {
				return tDouble, true
			}
		}
	case "&", "|", "#":
		if lt.isInteger() && rt.isInteger() {
			return higherNumeric(lt, rt), true
		}
	case "<<", ">>":
		if lt.isInteger() && rt.isInteger() {
			return lt.plain(), true
		}
	}
	// An operator the analysis does not type may be anyone's (a user's can
	// return NULL for any input): nullable.
	return tUnknown, false
}

// concatType types ||: text when either side is a string (and neither an
// array), the array when either is an array, jsonb, bytea.
func concatType(l, r typ) typ {
	switch {
	case l.isArray() && (r.isArray() || r.lit || r.same(l.elem().plain()) || r.same(l.elem())):
		return l.plain()
	case r.isArray() && (l.lit || l.same(r.elem().plain()) || l.same(r.elem())):
		return r.plain()
	case l.isArray() || r.isArray():
		return tUnknown
	case l.base == "jsonb" && (r.base == "jsonb" || r.lit):
		return tJSONB
	case r.base == "jsonb" && l.lit:
		return tJSONB
	case l.base == "bytea" && r.base == "bytea":
		return tBytea
	case l.lit && r.lit:
		return tText
	case (l.isString() || l.lit) && (r.isString() || r.lit):
		return tText
	case (l.isString() && r.known() && !r.isJSON() && r.base != "bytea" && r.base != "record"),
		(r.isString() && l.known() && !l.isJSON() && l.base != "bytea" && l.base != "record"):
		return tText // text || anynonarray
	}
	return tUnknown
}

// higherNumeric is the wider of two numeric types.
func higherNumeric(l, r typ) typ {
	li, _ := l.info()
	ri, _ := r.info()
	if ri.rank > li.rank {
		return r.plain()
	}
	return l.plain()
}

// arith types + - * / % over numbers, dates, times and intervals.
func arith(op string, l, r typ) typ {
	// An untyped literal takes the other side's type.
	switch {
	case l.lit && r.lit:
		return tUnknown
	case l.lit && r.isNumeric():
		l = r
	case r.lit && l.isNumeric():
		r = l
	}
	if l.isNumeric() && r.isNumeric() {
		lb, rb := l.base, r.base
		if lb == "real" || lb == "double precision" || rb == "real" || rb == "double precision" {
			if op == "%" {
				return tUnknown
			}
			if lb == "real" && rb == "real" {
				return tReal
			}
			return tDouble
		}
		return higherNumeric(l, r)
	}
	lb, rb := l.base, r.base
	key := lb + " " + op + " " + rb
	switch key {
	case "date + integer", "integer + date", "date - integer",
		"date + smallint", "smallint + date", "date - smallint":
		return tDate
	case "date - date":
		return tInt
	case "date + interval", "interval + date", "date - interval",
		"date + time without time zone", "time without time zone + date",
		"timestamp without time zone + interval", "interval + timestamp without time zone",
		"timestamp without time zone - interval":
		return tTimestamp
	case "timestamp with time zone + interval", "interval + timestamp with time zone",
		"timestamp with time zone - interval":
		return tTimestamptz
	case "timestamp without time zone - timestamp without time zone",
		"timestamp with time zone - timestamp with time zone",
		"interval + interval", "interval - interval",
		"time without time zone - time without time zone":
		return tInterval
	case "time without time zone + interval", "interval + time without time zone",
		"time without time zone - interval":
		return tTime
	}
	if (lb == "interval" && (op == "*" || op == "/") && (r.isNumeric())) ||
		(rb == "interval" && op == "*" && l.isNumeric()) {
		return tInterval
	}
	// timestamp(tz) + 'literal' resolves to + interval; - 'literal' to the
	// difference of two timestamps (both checked with PostgreSQL).
	if r.lit && (lb == "timestamp with time zone" || lb == "timestamp without time zone") {
		switch op {
		case "+":
			return l.plain()
		case "-":
			return tInterval
		}
	}
	return tUnknown
}
