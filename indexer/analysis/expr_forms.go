package analysis

import "github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"

// caseExpr: the common type of the results; not NULL when every result
// and an ELSE are.
func (s *state) caseExpr(lv *level, c *pgparse.CaseExpr) expr {
	if c.Arg != nil {
		s.expr(lv, c.Arg)
	}
	var results []typ
	nn := c.Defresult != nil
	for _, w := range c.Args {
		if w.CaseWhen == nil {
			s.unjudged("a CASE branch of type %s is not analysed", w.Kind())
			nn = false
			results = append(results, tUnknown)
			continue
		}
		s.expr(lv, w.CaseWhen.Expr)
		r := s.expr(lv, w.CaseWhen.Result)
		results = append(results, exprType(r))
		nn = nn && r.notNull
	}
	if c.Defresult != nil {
		d := s.expr(lv, c.Defresult)
		results = append(results, exprType(d))
		nn = nn && d.notNull
	} else {
		results = append(results, tLiteral)
	}
	return expr{t: commonType(results), notNull: nn}
}

// exprType is the type an expression brings to common-type resolution.
func exprType(e expr) typ {
	if e.param > 0 {
		return tUnknown
	}
	return e.t
}

// coalesce: the common type; not NULL when any argument is not; the
// snapshot's type when the non-literal arguments are columns of one
// snapshot type that the common type keeps.
func (s *state) coalesce(lv *level, ns []*pgparse.Node) expr {
	args := s.exprs(lv, ns)
	e := expr{t: commonType(types(args))}
	snap, ok := "", true
	var colT typ
	for _, a := range args {
		e.notNull = e.notNull || a.notNull
		switch {
		case a.snapType != "":
			if snap != "" && (snap != a.snapType || !colT.same(a.t)) {
				ok = false
			}
			snap, colT = a.snapType, a.t
		case a.t.lit && a.param == 0:
		default:
			if !a.t.known() || !e.t.known() {
				ok = false
			}
		}
	}
	if ok && snap != "" && (e.t.same(colT) || onlyLiteralsBesides(args)) {
		e.snapType = snap
	}
	return e
}

func onlyLiteralsBesides(args []expr) bool {
	for _, a := range args {
		if a.snapType == "" && !(a.t.lit && a.param == 0) {
			return false
		}
	}
	return true
}

func (s *state) indirection(lv *level, ind *pgparse.AIndirection) expr {
	base := s.expr(lv, ind.Arg)
	t := base.t
	for _, x := range ind.Indirection {
		switch {
		case x.AIndices != nil:
			s.expr(lv, x.AIndices.Lidx)
			s.expr(lv, x.AIndices.Uidx)
			switch {
			case t.isArray() && x.AIndices.IsSlice:
			case t.isArray():
				t = t.elem()
			case t.base == "jsonb" && !x.AIndices.IsSlice:
			default:
				t = tUnknown
			}
		default:
			t = tUnknown // a field of a composite, or .*
		}
	}
	return expr{t: t}
}

// subLink analyses a subquery in an expression.
func (s *state) subLink(lv *level, sl *pgparse.SubLink) expr {
	var test expr
	if sl.Testexpr != nil {
		test = s.expr(lv, sl.Testexpr)
	}
	cols, known := s.subquery(lv, sl.Subselect)
	if known && len(cols) > 0 {
		s.sublinkNames[sl] = cols[0].name
	}
	switch sl.SubLinkType {
	case "EXISTS_SUBLINK":
		return expr{t: tBool, notNull: true}
	case "EXPR_SUBLINK":
		if known && len(cols) == 1 {
			// One row always comes back from an aggregate without GROUP BY.
			return expr{t: cols[0].t, notNull: cols[0].notNull && oneRow(sl.Subselect)}
		}
		return expr{}
	case "ARRAY_SUBLINK":
		if known && len(cols) == 1 && cols[0].t.known() && !cols[0].t.isArray() {
			return expr{t: cols[0].t.array(), notNull: true}
		}
		return expr{notNull: true}
	case "ANY_SUBLINK", "ALL_SUBLINK", "ROWCOMPARE_SUBLINK":
		_ = test
		return expr{t: tBool}
	}
	return expr{}
}

// oneRow reports a subquery that always returns exactly one row: a plain
// SELECT without GROUP BY, HAVING, LIMIT or OFFSET whose single result is
// an aggregate (count, sum, ...) or a COALESCE starting with one.
func oneRow(n *pgparse.Node) bool {
	if n == nil || n.SelectStmt == nil {
		return false
	}
	st := n.SelectStmt
	if (st.Op != "" && st.Op != "SETOP_NONE") || len(st.GroupClause) > 0 || st.HavingClause != nil ||
		st.LimitCount != nil || st.LimitOffset != nil || len(st.ValuesLists) > 0 || len(st.TargetList) != 1 ||
		st.TargetList[0].ResTarget == nil {
		return false
	}
	v := st.TargetList[0].ResTarget.Val
	if v != nil && v.CoalesceExpr != nil && len(v.CoalesceExpr.Args) > 0 {
		v = v.CoalesceExpr.Args[0]
	}
	if v == nil || v.FuncCall == nil || v.FuncCall.Over != nil {
		return false
	}
	names := strs(v.FuncCall.Funcname)
	_, agg := aggregates[names[len(names)-1]]
	return agg && (len(names) == 1 || names[0] == "pg_catalog")
}
