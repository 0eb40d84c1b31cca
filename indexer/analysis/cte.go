package analysis

import "github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"

// withClause analyses WITH queries into the level's CTEs. In WITH
// RECURSIVE every name is known from the start (a forward reference is
// opaque until its query is analysed).
func (s *state) withClause(lv *level, w *pgparse.WithClause) {
	var defs []*cte
	for _, n := range w.Ctes {
		c := n.CommonTableExpr
		if c == nil {
			s.unjudged("a WITH item of type %s is not analysed", n.Kind())
			continue
		}
		d := &cte{name: c.Ctename, pending: true}
		defs = append(defs, d)
		if w.Recursive {
			lv.ctes = append(lv.ctes, d)
		}
	}
	i := 0
	for _, n := range w.Ctes {
		c := n.CommonTableExpr
		if c == nil {
			continue
		}
		d := defs[i]
		i++
		cols, known := s.cteQuery(lv, c, d, w.Recursive)
		if names := strs(c.Aliascolnames); len(names) > 0 {
			var ok bool
			cols, ok = applyAliases(cols, names, !known)
			known = known && ok
		}
		if c.SearchClause || c.CycleClause {
			known = false // SEARCH and CYCLE add columns
		}
		d.cols, d.opaque, d.pending = cols, !known, false
		if !w.Recursive {
			lv.ctes = append(lv.ctes, d)
		}
	}
}

// cteQuery analyses one WITH query. A recursive UNION is analysed left
// side first, so the right side sees the CTE's columns.
func (s *state) cteQuery(lv *level, c *pgparse.CommonTableExpr, d *cte, recursive bool) ([]rcol, bool) {
	q := c.Ctequery
	switch {
	case q == nil:
		return nil, false
	case q.SelectStmt != nil:
		st := q.SelectStmt
		if recursive && st.Op == "SETOP_UNION" && st.Larg != nil && st.Rarg != nil &&
			st.WithClause == nil && len(st.SortClause) == 0 && st.LimitCount == nil && st.LimitOffset == nil {
			l, lk := s.selectStmt(lv, st.Larg, true)
			cols := append([]rcol(nil), l...)
			if names := strs(c.Aliascolnames); len(names) > 0 {
				cols, _ = applyAliases(cols, names, !lk)
			}
			for i := range cols {
				cols[i].src, cols[i].snapType = nil, ""
			}
			d.cols, d.opaque, d.pending = cols, !lk, false
			r, rk := s.selectStmt(lv, st.Rarg, true)
			if !lk || !rk || len(l) != len(r) {
				return l, false
			}
			out := make([]rcol, len(l))
			weaker := false
			for i := range l {
				out[i] = rcol{name: l[i].name, t: l[i].t, notNull: l[i].notNull && r[i].notNull}
				weaker = weaker || (l[i].notNull && !r[i].notNull)
			}
			if weaker {
				// The right side was analysed believing those columns never NULL.
				for i := range out {
					out[i].notNull = false
				}
			}
			return out, true
		}
		return s.selectStmt(lv, st, true)
	case q.InsertStmt != nil:
		return s.insertStmt(lv, q.InsertStmt)
	case q.UpdateStmt != nil:
		return s.updateStmt(lv, q.UpdateStmt)
	case q.DeleteStmt != nil:
		return s.deleteStmt(lv, q.DeleteStmt)
	}
	s.unjudged("a WITH query of type %s is not analysed", q.Kind())
	return nil, false
}
