package analysis

import (
	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// join analyses a JOIN: the left side, the right side (which may see the
// left one laterally), the join's own columns (USING and NATURAL columns
// merged), the ON clause seeing only the join's items, then the NULLs an
// outer join brings.
func (s *state) join(lv *level, j *pgparse.JoinExpr) (*item, []*item) {
	ltop, litems := s.fromItem(lv, j.Larg)
	mark := len(lv.items)
	for _, it := range litems {
		it.lateralOnly = true
	}
	lv.items = append(lv.items, litems...)
	rtop, ritems := s.fromItem(lv, j.Rarg)
	lv.items = lv.items[:mark]
	for _, it := range litems {
		it.lateralOnly = false
	}

	lnull := j.Jointype == "JOIN_RIGHT" || j.Jointype == "JOIN_FULL"
	rnull := j.Jointype == "JOIN_LEFT" || j.Jointype == "JOIN_FULL"
	lcols, rcols := outputCols(ltop), outputCols(rtop)
	jt := &item{colsVisible: true, opaque: ltop.opaque || rtop.opaque}

	using := strs(j.UsingClause)
	if j.IsNatural {
		using = nil
		if !ltop.opaque && !rtop.opaque {
			for _, c := range lcols {
				if hasCol(rcols, c.name) && !containsStr(using, c.name) {
					using = append(using, c.name)
				}
			}
		} else {
			jt.opaque = true
		}
	}
	var mergedCols []rcol
	usedL, usedR := map[int]bool{}, map[int]bool{}
	for _, name := range using {
		li, lok := s.usingCol(lcols, ltop, name, "left", j)
		ri, rok := s.usingCol(rcols, rtop, name, "right", j)
		if !lok || !rok {
			jt.opaque = true
			continue
		}
		usedL[li], usedR[ri] = true, true
		mergedCols = append(mergedCols, mergeUsing(j.Jointype, name, lcols[li], rcols[ri]))
	}
	jt.cols = append(jt.cols, mergedCols...)
	for i, c := range lcols {
		if !usedL[i] {
			if lnull {
				c.notNull = false
			}
			jt.cols = append(jt.cols, c)
		}
	}
	for i, c := range rcols {
		if !usedR[i] {
			if rnull {
				c.notNull = false
			}
			jt.cols = append(jt.cols, c)
		}
	}

	// ON sees the two sides' items as they are (not the join's own columns,
	// which would count every name twice).
	all := append(append([]*item(nil), litems...), ritems...)
	if j.Quals != nil {
		saved := lv.onItems
		lv.onItems = all
		s.expr(lv, j.Quals)
		lv.onItems = saved
	}
	if lnull {
		markNulled(litems)
	}
	if rnull {
		markNulled(ritems)
	}
	if j.Alias != nil {
		jt.relVisible = true
		return jt, []*item{named(jt, j.Alias)}
	}
	for _, it := range all {
		it.colsVisible = false
	}
	out := append(all, jt)
	if j.JoinUsingAlias != nil {
		u := &item{refname: j.JoinUsingAlias.Aliasname, relVisible: true, cols: mergedCols}
		out = append(out, u)
	}
	return jt, out
}

// outputCols are the columns an item contributes to a join, with the
// NULLs of joins inside it already applied.
func outputCols(it *item) []rcol {
	cols := it.userColumns()
	if it.nulled {
		for i := range cols {
			cols[i].notNull = false
		}
	}
	return cols
}

func markNulled(items []*item) {
	for _, it := range items {
		it.nulled = true
	}
}

func hasCol(cols []rcol, name string) bool {
	for _, c := range cols {
		if c.name == name {
			return true
		}
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// usingCol finds a USING column on one side; PostgreSQL rejects a name
// missing from a side (reported when that side is fully known).
func (s *state) usingCol(cols []rcol, top *item, name, side string, j *pgparse.JoinExpr) (int, bool) {
	idx, n := -1, 0
	for i, c := range cols {
		if c.name == name {
			if idx < 0 {
				idx = i
			}
			n++
		}
	}
	switch {
	case n == 1:
		return idx, true
	case n == 0 && !top.opaque && !j.IsNatural:
		s.problem(snapshot.CodeUnknownColumn, -1, "column %s specified in USING clause does not exist in %s table", dq(name), side)
	}
	return 0, false
}

// mergeUsing builds a USING column: the left one for inner and left
// joins, the right one for right joins, their COALESCE for full joins.
// Matched rows have equal, so non-NULL, values.
func mergeUsing(jointype, name string, l, r rcol) rcol {
	t := commonType([]typ{l.t, r.t})
	switch jointype {
	case "JOIN_INNER", "JOIN_LEFT":
		c := l
		c.name = name
		if !t.same(l.t) {
			c.t, c.snapType, c.src = t, "", nil
		}
		if jointype == "JOIN_INNER" {
			c.notNull = true // an inner join's equal values are never NULL
		}
		return c
	case "JOIN_RIGHT":
		c := r
		c.name = name
		if !t.same(r.t) {
			c.t, c.snapType, c.src = t, "", nil
		}
		return c
	}
	// COALESCE(l, r): a row from one side only carries that side's value.
	c := rcol{name: name, t: t, notNull: l.notNull && r.notNull}
	if l.snapType != "" && l.snapType == r.snapType && l.t.same(r.t) {
		c.snapType = l.snapType
	}
	return c
}
