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
