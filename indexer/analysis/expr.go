package analysis

import (
	"strconv"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
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
func (s *state) expr(lv *level, n *pgparse.Node) expr {
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
	s.unjudged("an expression of type %s is not analysed", n.Kind())
	return expr{}
}

func (s *state) exprs(lv *level, ns []*pgparse.Node) []expr {
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
func (s *state) columnRef(lv *level, cr *pgparse.ColumnRef) expr {
	f := cr.Fields
	switch {
	case len(f) == 1 && f[0].String != nil:
		name := str(f[0])
		out, ref := lv.findColumn(name)
		switch out {
		case found:
			return colExpr(ref)
		case ambiguous:
			s.problem(snapshot.CodeAmbiguousColumn, cr.Location, "column reference %s is ambiguous", dq(name))
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
			s.problem(snapshot.CodeUnknownColumn, cr.Location, "column %s does not exist", dq(name))
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
			s.problem(snapshot.CodeAmbiguousColumn, cr.Location, "column reference %s is ambiguous", dq(q+"."+name))
			return expr{}
		case n == 0 && !it.opaque && out == found:
			s.problem(snapshot.CodeUnknownColumn, cr.Location, "column %s.%s does not exist", q, name)
		}
		return expr{}
	}
	return expr{} // schema.table.column and longer: not resolved
}

// constExpr types a literal as PostgreSQL does.
func constExpr(c *pgparse.AConst) expr {
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
func (s *state) castType(tn *pgparse.TypeName) typ {
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
	if !t.known() && len(names) == 1 && len(mods) == 0 && s.rel.isEnum(name) {
		t = typ{base: name, enum: true}
	}
	if len(tn.ArrayBounds) > 0 {
		t = t.array()
	}
	return t
}

func (s *state) typeCast(lv *level, tc *pgparse.TypeCast) expr {
	arg := s.expr(lv, tc.Arg)
	e := expr{t: s.castType(tc.TypeName), notNull: arg.notNull}
	if arg.param > 0 {
		e.castParam, e.paramPos = arg.param, arg.paramPos
	} else if arg.castParam > 0 {
		e.castParam, e.paramPos = arg.castParam, arg.paramPos
	}
	return e
}
