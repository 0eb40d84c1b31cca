package analysis

import "github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"

// subquery analyses a subquery of lv (in FROM or in an expression). known
// is false when its columns could not all be known.
func (s *state) subquery(lv *level, n *pgparse.Node) ([]rcol, bool) {
	if n == nil || n.SelectStmt == nil {
		s.unjudged("a subquery of type %s is not analysed", n.Kind())
		return nil, false
	}
	return s.selectStmt(lv, n.SelectStmt, true)
}

// selectStmt analyses one SELECT, VALUES or set operation as a query
// level under parent. resolve turns untyped literals in the result into
// text, as PostgreSQL does everywhere but in a set operation's branches.
func (s *state) selectStmt(parent *level, st *pgparse.SelectStmt, resolve bool) ([]rcol, bool) {
	s.enter()
	defer s.leave()
	lv := &level{parent: parent}
	if st.IntoClause {
		s.unjudged("SELECT INTO creates a table")
	}
	if st.WithClause != nil {
		s.withClause(lv, st.WithClause)
	}
	var cols []rcol
	known := true
	switch {
	case st.Op != "" && st.Op != "SETOP_NONE":
		cols, known = s.setOp(lv, st)
	case len(st.ValuesLists) > 0:
		cols, known = s.values(lv, st.ValuesLists)
		lv.targets = targetsOf(cols)
	default:
		// In PostgreSQL's order (transformSelectStmt), so that the first
		// problem is the one PostgreSQL reports.
		s.fromClause(lv, st.FromClause)
		lv.groupingSets = hasGroupingSets(st.GroupClause)
		cols, known = s.targetList(lv, st.TargetList)
		s.expr(lv, st.WhereClause)
		s.expr(lv, st.HavingClause)
		s.sortClause(lv, st)
		s.groupBy(lv, st.GroupClause)
		for _, d := range st.DistinctClause {
			if !d.IsEmpty() {
				s.sortKey(lv, d, false)
			}
		}
		s.expr(lv, st.LimitOffset)
		s.expr(lv, st.LimitCount)
		for _, w := range st.WindowClause {
			if w.WindowDef != nil {
				s.windowDef(lv, w.WindowDef)
			}
		}
		return s.resolved(cols, resolve), known
	}
	s.sortClause(lv, st)
	s.expr(lv, st.LimitOffset)
	s.expr(lv, st.LimitCount)
	return s.resolved(cols, resolve), known
}

// sortClause analyses ORDER BY.
func (s *state) sortClause(lv *level, st *pgparse.SelectStmt) {
	for _, o := range st.SortClause {
		if o.SortBy != nil {
			s.sortKey(lv, o.SortBy.Node, st.Op != "" && st.Op != "SETOP_NONE")
		}
	}
}

// resolved turns untyped literals of a result into text when resolve is
// set, as PostgreSQL does everywhere but in a set operation's branches.
func (s *state) resolved(cols []rcol, resolve bool) []rcol {
	if resolve {
		for i := range cols {
			if cols[i].t.lit {
				cols[i].t = tText
			}
		}
	}
	return cols
}

// targetsOf lists result columns as ORDER BY names.
func targetsOf(cols []rcol) []targetName {
	out := make([]targetName, len(cols))
	for i, c := range cols {
		out[i] = targetName{name: c.name, e: expr{t: c.t, notNull: c.notNull}}
	}
	return out
}

// hasGroupingSets reports ROLLUP, CUBE or GROUPING SETS in GROUP BY.
func hasGroupingSets(group []*pgparse.Node) bool {
	for _, g := range group {
		if g.GroupingSet != nil && g.GroupingSet.Kind != "GROUPING_SET_EMPTY" {
			return true
		}
	}
	return false
}

// targetList analyses a SELECT list (or RETURNING list) into result
// columns, expanding * and t.*.
func (s *state) targetList(lv *level, targets []*pgparse.Node) ([]rcol, bool) {
	var cols []rcol
	known := true
	for _, n := range targets {
		rt := n.ResTarget
		if rt == nil || rt.Val == nil {
			s.unjudged("a result item of type %s is not analysed", n.Kind())
			known = false
			continue
		}
		if cr := rt.Val.ColumnRef; cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].AStar != nil {
			c, ok := s.star(lv, cr)
			cols = append(cols, c...)
			known = known && ok
			continue
		}
		if ind := rt.Val.AIndirection; ind != nil && len(ind.Indirection) > 0 && ind.Indirection[len(ind.Indirection)-1].AStar != nil {
			s.expr(lv, ind.Arg)
			known = false // (composite).*
			continue
		}
		e := s.expr(lv, rt.Val)
		name := rt.Name
		if name == "" {
			name = s.figureColname(rt.Val)
		}
		t := e.t
		if e.param > 0 {
			t = tUnknown
		}
		cols = append(cols, rcol{name: name, t: t, snapType: e.snapType, notNull: e.notNull, src: e.src, param: e.param, paramPos: e.paramPos})
		lv.targets = append(lv.targets, targetName{name: name, e: e})
	}
	return cols, known
}

// star expands * or t.* to columns.
func (s *state) star(lv *level, cr *pgparse.ColumnRef) ([]rcol, bool) {
	expand := func(it *item) ([]rcol, bool) {
		cols := it.userColumns()
		for i := range cols {
			if it.nulled || lv.groupingSets {
				cols[i].notNull = false
			}
			lv.targets = append(lv.targets, targetName{name: cols[i].name, e: expr{t: cols[i].t}})
		}
		return cols, !it.opaque
	}
	switch len(cr.Fields) {
	case 1:
		var cols []rcol
		known := true
		any := false
		for _, it := range lv.visible() {
			if !it.colsVisible || it.lateralOnly {
				continue
			}
			any = true
			c, ok := expand(it)
			cols = append(cols, c...)
			known = known && ok
		}
		return cols, known && any
	case 2:
		q := str(cr.Fields[0])
		out, it, _ := lv.findItem(q)
		switch out {
		case found:
			return expand(it)
		case notFound:
			if !lv.hiddenItem(q) {
				s.missingFromEntry(lv, q, cr.Location)
			}
		}
	}
	return nil, false
}

// groupBy analyses GROUP BY: a bare name is a FROM column first, else a
// result column's name; a number is a result column's position.
func (s *state) groupBy(lv *level, group []*pgparse.Node) {
	for _, g := range group {
		switch {
		case g.GroupingSet != nil:
			s.groupBy(lv, g.GroupingSet.Content)
		case g.AConst != nil && g.AConst.Ival != nil:
		case isBareName(g):
			name := str(g.ColumnRef.Fields[0])
			if o, _ := (&level{items: lv.items}).findColumn(name); o == notFound && lv.hasTarget(name) {
				continue
			}
			s.expr(lv, g)
		default:
			s.expr(lv, g)
		}
	}
}

// sortKey analyses an ORDER BY or DISTINCT ON key: a bare name is a
// result column's name first, else a FROM column; a number a position. In
// a set operation only result columns can be named.
func (s *state) sortKey(lv *level, n *pgparse.Node, setOp bool) {
	switch {
	case n.AConst != nil && n.AConst.Ival != nil:
		return
	case isBareName(n):
		if lv.hasTarget(str(n.ColumnRef.Fields[0])) {
			return
		}
	}
	if setOp {
		return // PostgreSQL allows only result column names here
	}
	s.expr(lv, n)
}

func isBareName(n *pgparse.Node) bool {
	return n != nil && n.ColumnRef != nil && len(n.ColumnRef.Fields) == 1 && n.ColumnRef.Fields[0].String != nil
}

func (lv *level) hasTarget(name string) bool {
	for _, t := range lv.targets {
		if t.name == name {
			return true
		}
	}
	return false
}

// values analyses VALUES rows: columns column1..n of each column's common
// type.
func (s *state) values(lv *level, rows []*pgparse.Node) ([]rcol, bool) {
	var cols []rcol
	var ts [][]typ
	known := true
	for r, row := range rows {
		if row.List == nil {
			return nil, false
		}
		es := s.exprs(lv, row.List.Items)
		if r == 0 {
			for i := range es {
				cols = append(cols, rcol{name: "column" + itoa(i+1), notNull: true})
				ts = append(ts, nil)
			}
		}
		if len(es) != len(cols) {
			known = false // PostgreSQL: "VALUES lists must all be the same length"
			continue
		}
		for i, e := range es {
			cols[i].notNull = cols[i].notNull && e.notNull
			ts[i] = append(ts[i], exprType(e))
		}
	}
	for i := range cols {
		cols[i].t = commonType(ts[i])
		if len(rows) == 1 && len(ts[i]) == 1 && ts[i][0].lit {
			cols[i].t = tLiteral
		}
	}
	return cols, known
}

// setOp analyses UNION, INTERSECT and EXCEPT: names from the left, types
// resolved over both sides.
func (s *state) setOp(lv *level, st *pgparse.SelectStmt) ([]rcol, bool) {
	if st.Larg == nil || st.Rarg == nil {
		return nil, false
	}
	l, lk := s.selectStmt(lv, st.Larg, false)
	r, rk := s.selectStmt(lv, st.Rarg, false)
	if !lk || !rk || len(l) != len(r) {
		return l, false
	}
	out := make([]rcol, len(l))
	for i := range l {
		c := rcol{name: l[i].name, t: commonType([]typ{l[i].t, r[i].t})}
		if l[i].t.lit && r[i].t.lit {
			c.t = tLiteral
		}
		switch st.Op {
		case "SETOP_UNION":
			c.notNull = l[i].notNull && r[i].notNull
		case "SETOP_INTERSECT":
			c.notNull = l[i].notNull || r[i].notNull
		case "SETOP_EXCEPT":
			c.notNull = l[i].notNull
		}
		if l[i].snapType != "" && l[i].snapType == r[i].snapType && l[i].t.same(r[i].t) {
			c.snapType = l[i].snapType
		}
		out[i] = c
	}
	lv.targets = targetsOf(out)
	return out, true
}
