package analysis

import (
	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// fromClause analyses a FROM list into the level's namespace. While the
// list is processed, earlier items are visible only to LATERAL items.
func (s *state) fromClause(lv *level, from []*pgparse.Node) {
	start := len(lv.items)
	for _, n := range from {
		_, items := s.fromItem(lv, n)
		for _, it := range items {
			it.lateralOnly = true
		}
		lv.items = append(lv.items, items...)
	}
	for _, it := range lv.items[start:] {
		it.lateralOnly = false
	}
}

// fromItem analyses one FROM item. top is the item whose columns are the
// item's output (a join's own item for a join); items are the namespace
// items it adds.
func (s *state) fromItem(lv *level, n *pgparse.Node) (top *item, items []*item) {
	s.enter()
	defer s.leave()
	switch {
	case n.RangeVar != nil:
		it := s.rangeVar(lv, n.RangeVar, nil)
		return it, []*item{it}
	case n.RangeTableSample != nil:
		rs := n.RangeTableSample
		s.exprs(lv, rs.Args)
		s.expr(lv, rs.Repeatable)
		if rs.Relation != nil && rs.Relation.RangeVar != nil {
			it := s.rangeVar(lv, rs.Relation.RangeVar, nil)
			return it, []*item{it}
		}
	case n.RangeSubselect != nil:
		it := s.rangeSubselect(lv, n.RangeSubselect)
		return it, []*item{it}
	case n.RangeFunction != nil:
		it := s.rangeFunction(lv, n.RangeFunction)
		return it, []*item{it}
	case n.JoinExpr != nil:
		return s.join(lv, n.JoinExpr)
	}
	s.unjudged("the FROM item %s is not analysed", n.Kind())
	it := &item{anyRef: true, opaque: true, relVisible: true, colsVisible: true}
	return it, []*item{it}
}

// aliasNames returns an alias's column names.
func aliasNames(a *pgparse.Alias) []string {
	if a == nil {
		return nil
	}
	return strs(a.Colnames)
}

// named applies an alias (name and column names) to an item.
func named(it *item, a *pgparse.Alias) *item {
	if a == nil {
		return it
	}
	it.refname = a.Aliasname
	if len(a.Colnames) > 0 {
		cols, ok := applyAliases(it.cols, aliasNames(a), it.opaque)
		it.cols = cols
		if !ok {
			it.opaque = true // more column aliases than columns: PostgreSQL rejects it
		}
	}
	return it
}

// rangeVar resolves a table name: a WITH query first (unqualified names
// only), then a table of the release. target is set for INSERT, UPDATE
// and DELETE targets, which are never WITH queries.
func (s *state) rangeVar(lv *level, rv *pgparse.RangeVar, target *bool) *item {
	if rv.Schemaname == "" && rv.Catalogname == "" && target == nil {
		if c := lv.findCTE(rv.Relname); c != nil {
			it := &item{refname: rv.Relname, relVisible: true, colsVisible: true, opaque: c.opaque || c.pending}
			it.cols = append([]rcol(nil), c.cols...)
			return named(it, rv.Alias)
		}
	}
	t, ok := s.resolveTable(rv)
	if !ok {
		it := &item{refname: rv.Relname, relVisible: true, colsVisible: true, opaque: true}
		return named(it, rv.Alias)
	}
	s.touch(t, target == nil || *target, target != nil, rv.Location)
	return named(tableItem(t, rv.Relname), rv.Alias)
}

// resolveTable finds the release's table a name means, reporting
// UNKNOWN_TABLE and AMBIGUOUS_TABLE when certain. ok is false when the
// table is not known (reported or not).
func (s *state) resolveTable(rv *pgparse.RangeVar) (*tableInfo, bool) {
	name := rv.Relname
	if rv.Catalogname != "" {
		return nil, false // catalog.schema.table: not modelled
	}
	if rv.Schemaname != "" {
		if _, isConn := s.rel.conns[rv.Schemaname]; isConn {
			for _, t := range s.rel.lookupTable(name) {
				if t.conn == rv.Schemaname {
					return s.postgresTable(t, rv)
				}
			}
			s.problem(snapshot.CodeUnknownTable, rv.Location, "relation %s does not exist", dq(rv.Schemaname+"."+name))
			return nil, false
		}
		// A schema of the database (public, pg_catalog, ...): a table of that
		// name when there is exactly one, else not known.
		if ts := s.rel.lookupTable(name); len(ts) == 1 && rv.Schemaname == "public" {
			return s.postgresTable(ts[0], rv)
		}
		return nil, false
	}
	ts := s.rel.lookupTable(name)
	switch {
	case len(ts) == 1:
		s.single[ts[0].conn] = true
		return s.postgresTable(ts[0], rv)
	case len(ts) > 1:
		if pg := postgresOnly(ts); len(pg) == 1 {
			s.single[pg[0].conn] = true
			return s.postgresTable(pg[0], rv)
		} else if len(pg) > 1 {
			ts = pg
		}
		if t := s.chosen[name]; t != nil {
			return s.postgresTable(t, rv)
		}
		if s.chosen != nil {
			s.problem(snapshot.CodeAmbiguousTable, rv.Location, "table %s is in several connections, and the statement's other tables do not tell which", dq(name))
			return nil, false
		}
		s.multi[name] = ts
		s.deferTo = true
		return nil, false
	}
	if isSystemName(name) || s.rel.ntables == 0 {
		return nil, false
	}
	s.problem(snapshot.CodeUnknownTable, rv.Location, "relation %s does not exist", dq(name))
	return nil, false
}

// postgresTable accepts a table of a postgres connection; a table of
// another engine leaves the logic unjudged.
func (s *state) postgresTable(t *tableInfo, rv *pgparse.RangeVar) (*tableInfo, bool) {
	if !t.postgres {
		s.unjudged("table %s belongs to a connection that is not postgres", quoteIdent(rv.Relname))
		return nil, false
	}
	return t, true
}

func postgresOnly(ts []*tableInfo) []*tableInfo {
	var out []*tableInfo
	for _, t := range ts {
		if t.postgres {
			out = append(out, t)
		}
	}
	return out
}

// isSystemName reports relation names PostgreSQL finds in pg_catalog
// whatever the release holds.
func isSystemName(name string) bool {
	return len(name) >= 3 && name[:3] == "pg_"
}

// rangeSubselect analyses a subquery in FROM.
func (s *state) rangeSubselect(lv *level, r *pgparse.RangeSubselect) *item {
	saved := lv.lateralActive
	lv.lateralActive = r.Lateral
	cols, known := s.subquery(lv, r.Subquery)
	lv.lateralActive = saved
	it := &item{cols: cols, opaque: !known, relVisible: r.Alias != nil, colsVisible: true}
	return named(it, r.Alias)
}

// rangeFunction analyses a function in FROM (always able to see the
// items before it, as if LATERAL).
func (s *state) rangeFunction(lv *level, r *pgparse.RangeFunction) *item {
	saved := lv.lateralActive
	lv.lateralActive = true
	defer func() { lv.lateralActive = saved }()
	it := &item{relVisible: true, colsVisible: true}
	var fname string
	known := !r.IsRowsfrom && len(r.Functions) == 1
	for _, f := range r.Functions {
		if f.List == nil || len(f.List.Items) == 0 || f.List.Items[0].FuncCall == nil {
			known = false
			continue
		}
		fc := f.List.Items[0].FuncCall
		args := s.exprs(lv, fc.Args)
		names := strs(fc.Funcname)
		fname = names[len(names)-1]
		builtin := len(names) == 1 || (len(names) == 2 && names[0] == "pg_catalog")
		if !known || !builtin {
			known = false
			continue
		}
		if len(r.Coldeflist) > 0 {
			for _, d := range r.Coldeflist {
				if d.ColumnDef == nil {
					known = false
					continue
				}
				it.cols = append(it.cols, rcol{name: d.ColumnDef.Colname, t: s.castType(d.ColumnDef.TypeName)})
			}
			continue
		}
		cols, scalar, ok := setReturning(fname, types(args))
		if !ok {
			known = false
			continue
		}
		if scalar {
			cols[0].name = fname
			if r.Alias != nil {
				cols[0].name = r.Alias.Aliasname
			}
		}
		it.cols = cols
	}
	if len(r.Coldeflist) > 0 && len(r.Functions) == 1 {
		known = len(it.cols) == len(r.Coldeflist)
	}
	if !known {
		it.cols = nil
		it.opaque = true
	}
	if r.Ordinality && !it.opaque {
		it.cols = append(it.cols, rcol{name: "ordinality", t: tBigint, notNull: true})
	}
	switch {
	case r.Alias != nil:
	case len(r.Functions) == 1 && fname != "":
		it.refname = fname
	default:
		it.anyRef = true
	}
	return named(it, r.Alias)
}
