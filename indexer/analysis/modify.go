package analysis

import (
	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// targetColumn checks that a SET or INSERT column names a column of the
// target table; the column's expression when it does.
func (s *state) targetColumn(target *item, rt *pgparse.ResTarget) (expr, bool) {
	if target.table == nil {
		return expr{}, false
	}
	i, ok := target.table.column(rt.Name)
	if !ok {
		s.problem(snapshot.CodeUnknownColumn, rt.Location, "column %s of relation %s does not exist", dq(rt.Name), dq(target.table.name))
		return expr{}, false
	}
	c := target.table.cols[i]
	e := expr{t: c.t, snapType: c.snapType, src: &srcCol{table: target.table, col: i}}
	if len(rt.Indirection) > 0 {
		e.src = nil // a subscript or field of the column, not the column
	}
	return e, true
}

// assign analyses a value assigned to a column (INSERT VALUES, SET).
func (s *state) assign(lv *level, col expr, n *pgparse.Node) {
	if n == nil || n.SetToDefault != nil {
		return
	}
	e := s.expr(lv, n)
	if col.src != nil && (e.param > 0 || e.castParam > 0) {
		s.bind(e, col, true, e.paramPos)
	}
}

// setList analyses UPDATE's (or ON CONFLICT's) SET list.
func (s *state) setList(lv *level, target *item, targets []*pgparse.Node) {
	multi := map[*pgparse.Node]bool{}
	for _, n := range targets {
		rt := n.ResTarget
		if rt == nil {
			s.unjudged("a SET item of type %s is not analysed", n.Kind())
			continue
		}
		col, _ := s.targetColumn(target, rt)
		if m := rt.Val.MultiAssignRef; m != nil && rt.Val != nil {
			src := m.Source
			switch {
			case src != nil && src.RowExpr != nil && m.Colno >= 1 && m.Colno <= len(src.RowExpr.Args):
				s.assign(lv, col, src.RowExpr.Args[m.Colno-1])
			case src != nil && !multi[src]:
				multi[src] = true
				s.expr(lv, src)
			}
			continue
		}
		s.assign(lv, col, rt.Val)
	}
}

// returning analyses a RETURNING list; nil, true when there is none.
func (s *state) returning(lv *level, list []*pgparse.Node) ([]rcol, bool) {
	if len(list) == 0 {
		return nil, true
	}
	cols, known := s.targetList(lv, list)
	for i := range cols {
		if cols[i].t.lit {
			cols[i].t = tText
		}
	}
	if cols == nil {
		cols = []rcol{}
	}
	return cols, known
}

// insertStmt analyses an INSERT: its target and columns, the rows it
// inserts, ON CONFLICT and RETURNING.
func (s *state) insertStmt(parent *level, st *pgparse.InsertStmt) ([]rcol, bool) {
	s.enter()
	defer s.leave()
	lv := &level{parent: parent}
	if st.WithClause != nil {
		s.withClause(lv, st.WithClause)
	}
	if st.Relation == nil {
		return nil, false
	}
	write := false
	target := s.rangeVar(lv, st.Relation, &write)
	if st.OnConflictClause != nil && st.OnConflictClause.Action == "ONCONFLICT_UPDATE" && target.table != nil {
		s.touch(target.table, true, true, st.Relation.Location)
	}

	// The target columns, explicit or implicit.
	var cols []expr
	named := map[int]bool{}
	colsOK := target.table != nil
	for _, n := range st.Cols {
		if n.ResTarget == nil {
			colsOK = false
			continue
		}
		e, ok := s.targetColumn(target, n.ResTarget)
		if !ok {
			colsOK = false
		} else if i, found := target.table.column(n.ResTarget.Name); found {
			named[i] = true
		}
		cols = append(cols, e)
	}
	explicit := len(st.Cols) > 0
	implicit := func(n int) {
		if target.table == nil || explicit {
			return
		}
		for i := 0; i < n && i < len(target.table.cols); i++ {
			c := target.table.cols[i]
			cols = append(cols, expr{t: c.t, snapType: c.snapType, src: &srcCol{table: target.table, col: i}})
			named[i] = true
		}
		if n > len(target.table.cols) {
			colsOK = false
		}
	}

	// The rows.
	nvals, rowsOK := 0, true
	switch sel := st.SelectStmt; {
	case sel == nil: // DEFAULT VALUES
	case sel.SelectStmt != nil && isPlainValues(sel.SelectStmt):
		for r, row := range sel.SelectStmt.ValuesLists {
			if row.List == nil {
				rowsOK = false
				continue
			}
			if r == 0 {
				nvals = len(row.List.Items)
				implicit(nvals)
			} else if len(row.List.Items) != nvals {
				rowsOK = false
			}
			for i, v := range row.List.Items {
				var col expr
				if i < len(cols) {
					col = cols[i]
				}
				s.assign(lv, col, v)
			}
		}
	case sel.SelectStmt != nil:
		rows, known := s.selectStmt(lv, sel.SelectStmt, true)
		nvals, rowsOK = len(rows), known
		implicit(nvals)
		for i, r := range rows {
			if i < len(cols) && r.param > 0 && cols[i].src != nil {
				s.bind(expr{param: r.param, paramPos: r.paramPos}, cols[i], true, r.paramPos)
			}
		}
	default:
		rowsOK = false
		s.unjudged("an INSERT source of type %s is not analysed", sel.Kind())
	}
	if oc := st.OnConflictClause; oc != nil {
		s.onConflict(lv, target, oc)
	}
	rl := &level{parent: lv, items: []*item{target}}
	result, known := s.returning(rl, st.ReturningList)

	// Last: PostgreSQL raises this one when the INSERT runs, after any
	// error of its analysis.
	if colsOK && rowsOK && (len(cols) == nvals || st.SelectStmt == nil) {
		for i, c := range target.table.cols {
			if c.notNull && !c.hasDefault && !named[i] {
				s.problem(snapshot.CodeMissingColumn, st.Relation.Location,
					"INSERT leaves out column %s, which is NOT NULL and has no default", dq(c.name))
			}
		}
	}
	return result, known
}

// isPlainValues reports a bare VALUES list (no ORDER BY, LIMIT, WITH).
func isPlainValues(st *pgparse.SelectStmt) bool {
	return len(st.ValuesLists) > 0 && len(st.SortClause) == 0 && st.LimitCount == nil &&
		st.LimitOffset == nil && st.WithClause == nil && (st.Op == "" || st.Op == "SETOP_NONE")
}

// onConflict analyses ON CONFLICT: the inference columns, and for DO
// UPDATE its SET list and WHERE, which see the target and EXCLUDED (both
// for unqualified names, as in PostgreSQL).
func (s *state) onConflict(lv *level, target *item, oc *pgparse.OnConflictClause) {
	tl := &level{parent: lv, items: []*item{target}}
	if inf := oc.Infer; inf != nil {
		for _, n := range inf.IndexElems {
			ie := n.IndexElem
			switch {
			case ie == nil:
			case ie.Name != "":
				if target.table != nil {
					if _, ok := target.table.column(ie.Name); !ok {
						s.problem(snapshot.CodeUnknownColumn, oc.Location, "column %s does not exist", dq(ie.Name))
					}
				}
			default:
				s.expr(tl, ie.Expr)
			}
		}
		s.expr(tl, inf.WhereClause)
	}
	if oc.Action != "ONCONFLICT_UPDATE" {
		return
	}
	excluded := &item{refname: "excluded", relVisible: true, colsVisible: true, opaque: target.opaque}
	excluded.cols = append([]rcol(nil), target.cols...)
	for i := range excluded.cols {
		excluded.cols[i].notNull = false // the proposed row: not modelled
	}
	ul := &level{parent: lv, items: []*item{excluded, target}}
	s.setList(ul, target, oc.TargetList)
	s.expr(ul, oc.WhereClause)
}

// updateStmt analyses an UPDATE: target, FROM, SET, WHERE, RETURNING.
func (s *state) updateStmt(parent *level, st *pgparse.UpdateStmt) ([]rcol, bool) {
	s.enter()
	defer s.leave()
	lv := &level{parent: parent}
	if st.WithClause != nil {
		s.withClause(lv, st.WithClause)
	}
	if st.Relation == nil {
		return nil, false
	}
	rw := true
	target := s.rangeVar(lv, st.Relation, &rw)
	// As transformUpdateStmt: FROM cannot see the target (but LATERAL
	// items may name it), then WHERE, RETURNING and SET.
	target.lateralOnly = true
	lv.items = append(lv.items, target)
	s.fromClause(lv, st.FromClause)
	target.lateralOnly = false
	s.expr(lv, st.WhereClause)
	cols, known := s.returning(lv, st.ReturningList)
	s.setList(lv, target, st.TargetList)
	return cols, known
}

// deleteStmt analyses a DELETE: target, USING, WHERE, RETURNING.
func (s *state) deleteStmt(parent *level, st *pgparse.DeleteStmt) ([]rcol, bool) {
	s.enter()
	defer s.leave()
	lv := &level{parent: parent}
	if st.WithClause != nil {
		s.withClause(lv, st.WithClause)
	}
	if st.Relation == nil {
		return nil, false
	}
	rw := true
	target := s.rangeVar(lv, st.Relation, &rw)
	target.lateralOnly = true
	lv.items = append(lv.items, target)
	s.fromClause(lv, st.UsingClause)
	target.lateralOnly = false
	s.expr(lv, st.WhereClause)
	return s.returning(lv, st.ReturningList)
}

// mergeStmt analyses a MERGE: the target and the source joined on the
// condition; each WHEN clause sees what PostgreSQL lets it see (both for
// MATCHED, the source for NOT MATCHED [BY TARGET], the target for NOT
// MATCHED BY SOURCE); UPDATE SET and INSERT columns are the target's.
func (s *state) mergeStmt(parent *level, st *pgparse.MergeStmt) ([]rcol, bool) {
	s.enter()
	defer s.leave()
	lv := &level{parent: parent}
	if st.WithClause != nil {
		s.withClause(lv, st.WithClause)
	}
	if st.Relation == nil || st.SourceRelation == nil {
		return nil, false
	}
	rw := true
	target := s.rangeVar(lv, st.Relation, &rw)
	_, sources := s.fromItem(lv, st.SourceRelation)
	both := &level{parent: lv, items: append([]*item{target}, sources...)}
	s.expr(both, st.JoinCondition)
	for _, n := range st.MergeWhenClauses {
		w := n.MergeWhenClause
		if w == nil {
			s.unjudged("a MERGE clause of type %s is not analysed", n.Kind())
			continue
		}
		sees := both
		switch w.MatchKind {
		case "MERGE_WHEN_NOT_MATCHED_BY_TARGET":
			sees = &level{parent: lv, items: sources}
		case "MERGE_WHEN_NOT_MATCHED_BY_SOURCE":
			sees = &level{parent: lv, items: []*item{target}}
		}
		s.expr(sees, w.Condition)
		switch w.CommandType {
		case "CMD_UPDATE":
			s.setList(sees, target, w.TargetList)
		case "CMD_INSERT":
			var cols []expr
			for _, c := range w.TargetList {
				if c.ResTarget == nil {
					continue
				}
				e, _ := s.targetColumn(target, c.ResTarget)
				cols = append(cols, e)
			}
			if len(w.TargetList) == 0 && target.table != nil {
				for i, c := range target.table.cols {
					cols = append(cols, expr{t: c.t, snapType: c.snapType, src: &srcCol{table: target.table, col: i}})
				}
			}
			for i, v := range w.Values {
				var col expr
				if i < len(cols) {
					col = cols[i]
				}
				s.assign(sees, col, v)
			}
		}
	}
	return s.returning(both, st.ReturningList)
}
