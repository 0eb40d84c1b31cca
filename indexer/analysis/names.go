package analysis

import (
	"strconv"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
)

// figureColname names a result column as PostgreSQL's FigureColname does
// when the query gives no alias: a column's name, a function's name, a
// cast's type name, "case", "coalesce", ... or "?column?".
func (s *state) figureColname(n *pgparse.Node) string {
	name, strength := s.figure(n)
	if strength == 0 {
		return "?column?"
	}
	return name
}

// figure returns a name and its strength: 2 a real name, 1 a fallback
// (a cast's type, "case"), 0 none.
func (s *state) figure(n *pgparse.Node) (string, int) {
	switch {
	case n == nil:
		return "", 0
	case n.ColumnRef != nil:
		name := ""
		for _, f := range n.ColumnRef.Fields {
			if f.String != nil {
				name = f.String.Sval
			}
		}
		if name != "" {
			return name, 2
		}
	case n.AIndirection != nil:
		name := ""
		for _, f := range n.AIndirection.Indirection {
			if f.String != nil {
				name = f.String.Sval
			}
		}
		if name != "" {
			return name, 2
		}
		return s.figure(n.AIndirection.Arg)
	case n.FuncCall != nil:
		names := strs(n.FuncCall.Funcname)
		return names[len(names)-1], 2
	case n.AExpr != nil:
		if n.AExpr.Kind == "AEXPR_NULLIF" {
			return "nullif", 2
		}
	case n.TypeCast != nil:
		name, strength := s.figure(n.TypeCast.Arg)
		if strength <= 1 && n.TypeCast.TypeName != nil && len(n.TypeCast.TypeName.Names) > 0 {
			names := strs(n.TypeCast.TypeName.Names)
			return names[len(names)-1], 1
		}
		return name, strength
	case n.CollateClause != nil:
		return s.figure(n.CollateClause.Arg)
	case n.GroupingFunc != nil:
		return "grouping", 2
	case n.SubLink != nil:
		switch n.SubLink.SubLinkType {
		case "EXISTS_SUBLINK":
			return "exists", 2
		case "ARRAY_SUBLINK":
			return "array", 2
		case "EXPR_SUBLINK":
			if name, ok := s.sublinkNames[n.SubLink]; ok {
				return name, 2
			}
		}
	case n.CaseExpr != nil:
		name, strength := s.figure(n.CaseExpr.Defresult)
		if strength <= 1 {
			return "case", 1
		}
		return name, strength
	case n.AArrayExpr != nil:
		return "array", 2
	case n.RowExpr != nil:
		return "row", 2
	case n.CoalesceExpr != nil:
		return "coalesce", 2
	case n.MinMaxExpr != nil:
		if n.MinMaxExpr.Op == "IS_LEAST" {
			return "least", 2
		}
		return "greatest", 2
	case n.SQLValueFunction != nil:
		if v, ok := sqlValueFunctions[n.SQLValueFunction.Op]; ok {
			return v.name, 2
		}
	}
	return "", 0
}

// str returns the string of a String node ("" otherwise).
func str(n *pgparse.Node) string {
	if n == nil || n.String == nil {
		return ""
	}
	return n.String.Sval
}

// strs returns the strings of a list of String nodes.
func strs(ns []*pgparse.Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, str(n))
	}
	return out
}

// itoa is strconv.Itoa, short.
func itoa(i int) string { return strconv.Itoa(i) }
