package analysis

import (
	"strconv"
	"strings"
)

// expr is what the analysis knows of a value expression.
type expr struct {
	t         typ
	notNull   bool    // provably never NULL
	snapType  string  // the snapshot's type, when the expression is a table column or a COALESCE of one
	src       *srcCol // the table column, when the expression is one
	param     int     // $n when the expression is a placeholder alone
	castParam int     // $n when it is a placeholder under a cast
	paramPos  int     // where that placeholder is
	isCol     bool    // a plain column reference
}

// typeString is the type a result column states: the snapshot's when the
// expression is a table column (or a COALESCE of one), PostgreSQL's
// otherwise.
func (e expr) typeString() string {
	if e.snapType != "" {
		return e.snapType
	}
	return e.t.String()
}

// colExpr is the expression of a resolved column.
func colExpr(ref colRef) expr {
	c := ref.col
	e := expr{t: c.t, notNull: c.notNull, snapType: c.snapType, src: c.src, isCol: true}
	if ref.it.nulled || (ref.lv != nil && ref.lv.groupingSets) {
		e.notNull = false
	}
	return e
}

// expr analyses a value expression.
func (s *state) expr(lv *level, n *node) expr {
	if n == nil {
		return expr{}
	}
	s.enter()
	defer s.leave()
	switch {
	case n.ColumnRef != nil:
		return s.columnRef(lv, n.ColumnRef)
	case n.ParamRef != nil:
		if _, ok := s.placeholder(n.ParamRef.Number); ok {
			return expr{param: n.ParamRef.Number, paramPos: n.ParamRef.Location}
		}
		return expr{}
	case n.AConst != nil:
		return constExpr(n.AConst)
	case n.TypeCast != nil:
		return s.typeCast(lv, n.TypeCast)
	case n.AExpr != nil:
		return s.aExpr(lv, n.AExpr)
	case n.BoolExpr != nil:
		nn := true
		for _, a := range n.BoolExpr.Args {
			nn = s.expr(lv, a).notNull && nn
		}
		return expr{t: tBool, notNull: nn}
	case n.NullTest != nil:
		s.expr(lv, n.NullTest.Arg)
		return expr{t: tBool, notNull: true}
	case n.BooleanTest != nil:
		s.expr(lv, n.BooleanTest.Arg)
		return expr{t: tBool, notNull: true}
	case n.FuncCall != nil:
		return s.funcCall(lv, n.FuncCall)
	case n.CaseExpr != nil:
		return s.caseExpr(lv, n.CaseExpr)
	case n.CoalesceExpr != nil:
		return s.coalesce(lv, n.CoalesceExpr.Args)
	case n.MinMaxExpr != nil:
		args := s.exprs(lv, n.MinMaxExpr.Args)
		e := expr{t: commonType(types(args))}
		for _, a := range args {
			e.notNull = e.notNull || a.notNull
		}
		return e
	case n.SubLink != nil:
		return s.subLink(lv, n.SubLink)
	case n.AArrayExpr != nil:
		args := s.exprs(lv, n.AArrayExpr.Elements)
		if len(args) == 0 {
			return expr{notNull: true}
		}
		t := commonType(types(args))
		if !t.isArray() {
			t = t.array()
		}
		return expr{t: t, notNull: true}
	case n.RowExpr != nil:
		s.exprs(lv, n.RowExpr.Args)
		return expr{t: tRecord, notNull: true}
	case n.AIndirection != nil:
		return s.indirection(lv, n.AIndirection)
	case n.CollateClause != nil:
		e := s.expr(lv, n.CollateClause.Arg)
		return expr{t: e.t, notNull: e.notNull}
	case n.SQLValueFunction != nil:
		return svfExpr(n.SQLValueFunction)
	case n.GroupingFunc != nil:
		s.exprs(lv, n.GroupingFunc.Args)
		return expr{t: tInt, notNull: true}
	case n.NamedArgExpr != nil:
		return s.expr(lv, n.NamedArgExpr.Arg)
	case n.SetToDefault != nil:
		return expr{}
	}
	s.unjudged("an expression of type %s is not analysed", n.kind())
	return expr{}
}

func (s *state) exprs(lv *level, ns []*node) []expr {
	out := make([]expr, 0, len(ns))
	for _, n := range ns {
		out = append(out, s.expr(lv, n))
	}
	return out
}

func types(es []expr) []typ {
	out := make([]typ, len(es))
	for i, e := range es {
		out[i] = e.t
		if e.param > 0 {
			out[i] = tUnknown // a bare $n takes its type from the others: not modelled
		}
	}
	return out
}

// columnRef resolves a column reference.
func (s *state) columnRef(lv *level, cr *columnRef) expr {
	f := cr.Fields
	switch {
	case len(f) == 1 && f[0].String != nil:
		name := str(f[0])
		out, ref := lv.findColumn(name)
		switch out {
		case found:
			return colExpr(ref)
		case ambiguous:
			s.problem(CodeAmbiguousColumn, cr.Location, "column reference %s is ambiguous", dq(name))
			return expr{}
		case unknown:
			return expr{}
		}
		// PostgreSQL then reads the name as a whole row of a FROM item.
		switch o, _, _ := lv.findItem(name); o {
		case found, unknown:
			return expr{t: tUnknown}
		}
		if !lv.hiddenColumn(name) && !lv.hiddenItem(name) {
			s.problem(CodeUnknownColumn, cr.Location, "column %s does not exist", dq(name))
		}
		return expr{}
	case len(f) == 2 && f[0].String != nil:
		q := str(f[0])
		out, it, l := lv.findItem(q)
		switch {
		case out == notFound:
			if !lv.hiddenItem(q) {
				s.missingFromEntry(lv, q, cr.Location)
			}
			return expr{}
		case it == nil:
			return expr{}
		case f[1].AStar != nil:
			return expr{t: tUnknown}
		}
		name := str(f[1])
		c, n := it.columnOf(name)
		switch {
		case n == 1 && !(out == unknown):
			return colExpr(colRef{it: it, col: c, lv: l})
		case n == 1:
			return expr{}
		case n > 1 && out == found:
			s.problem(CodeAmbiguousColumn, cr.Location, "column reference %s is ambiguous", dq(q+"."+name))
			return expr{}
		case n == 0 && !it.opaque && out == found:
			s.problem(CodeUnknownColumn, cr.Location, "column %s.%s does not exist", q, name)
		}
		return expr{}
	}
	return expr{} // schema.table.column and longer: not resolved
}

// constExpr types a literal as PostgreSQL does.
func constExpr(c *aConst) expr {
	switch {
	case c.Isnull:
		return expr{t: tLiteral}
	case c.Ival != nil:
		return expr{t: tInt, notNull: true}
	case c.Fval != nil:
		v := *c.Fval
		if !strings.ContainsAny(v, ".eE") {
			if _, err := strconv.ParseInt(v, 10, 64); err == nil {
				return expr{t: tBigint, notNull: true}
			}
		}
		return expr{t: tNumeric, notNull: true}
	case c.Boolval != nil:
		return expr{t: tBool, notNull: true}
	case c.Sval != nil:
		return expr{t: tLiteral, notNull: true}
	}
	return expr{notNull: true} // bit strings
}

// castType is the type a TypeName names, when the analysis knows it.
func (s *state) castType(tn *typeName) typ {
	if tn == nil || tn.Setof || tn.PctType {
		return tUnknown
	}
	names := strs(tn.Names)
	name := names[len(names)-1]
	if len(names) > 2 || (len(names) == 2 && names[0] != "pg_catalog") {
		return tUnknown
	}
	var mods []int64
	for _, m := range tn.Typmods {
		if m.AConst == nil || m.AConst.Ival == nil {
			return tUnknown
		}
		mods = append(mods, *m.AConst.Ival)
	}
	t := typeFromName(name, mods)
	if !t.known() && len(names) == 1 && len(mods) == 0 && s.cat.enums[name] {
		t = typ{base: name, enum: true}
	}
	if len(tn.ArrayBounds) > 0 {
		t = t.array()
	}
	return t
}

func (s *state) typeCast(lv *level, tc *typeCast) expr {
	arg := s.expr(lv, tc.Arg)
	e := expr{t: s.castType(tc.TypeName), notNull: arg.notNull}
	if arg.param > 0 {
		e.castParam, e.paramPos = arg.param, arg.paramPos
	} else if arg.castParam > 0 {
		e.castParam, e.paramPos = arg.castParam, arg.paramPos
	}
	return e
}

// caseExpr: the common type of the results; not NULL when every result
// and an ELSE are.
func (s *state) caseExpr(lv *level, c *caseExpr) expr {
	if c.Arg != nil {
		s.expr(lv, c.Arg)
	}
	var results []typ
	nn := c.Defresult != nil
	for _, w := range c.Args {
		if w.CaseWhen == nil {
			s.unjudged("a CASE branch of type %s is not analysed", w.kind())
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
func (s *state) coalesce(lv *level, ns []*node) expr {
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

func (s *state) indirection(lv *level, ind *aIndirection) expr {
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

// svfExpr types CURRENT_DATE, CURRENT_USER and the like.
func svfExpr(f *sqlValueFunction) expr {
	switch f.Op {
	case "SVFOP_CURRENT_DATE":
		return expr{t: tDate, notNull: true}
	case "SVFOP_CURRENT_TIME":
		return expr{t: tTimetz, notNull: true}
	case "SVFOP_CURRENT_TIMESTAMP":
		return expr{t: tTimestamptz, notNull: true}
	case "SVFOP_LOCALTIME":
		return expr{t: tTime, notNull: true}
	case "SVFOP_LOCALTIMESTAMP":
		return expr{t: tTimestamp, notNull: true}
	case "SVFOP_CURRENT_TIME_N":
		return expr{t: typ{base: tTimetz.base, mod: "(" + itoa(f.Typmod) + ")"}, notNull: true}
	case "SVFOP_CURRENT_TIMESTAMP_N":
		return expr{t: typ{base: tTimestamptz.base, mod: "(" + itoa(f.Typmod) + ")"}, notNull: true}
	case "SVFOP_LOCALTIME_N":
		return expr{t: typ{base: tTime.base, mod: "(" + itoa(f.Typmod) + ")"}, notNull: true}
	case "SVFOP_LOCALTIMESTAMP_N":
		return expr{t: typ{base: tTimestamp.base, mod: "(" + itoa(f.Typmod) + ")"}, notNull: true}
	case "SVFOP_CURRENT_ROLE", "SVFOP_CURRENT_USER", "SVFOP_USER", "SVFOP_SESSION_USER", "SVFOP_CURRENT_CATALOG":
		return expr{t: tName, notNull: true}
	case "SVFOP_CURRENT_SCHEMA":
		return expr{t: tName}
	}
	return expr{}
}

// subLink analyses a subquery in an expression.
func (s *state) subLink(lv *level, sl *subLink) expr {
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
func oneRow(n *node) bool {
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
