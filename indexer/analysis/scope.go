package analysis

// Name resolution follows PostgreSQL's parse analysis (parse_relation.c):
// each query level has a namespace of FROM items; an unqualified column
// is searched in the visible items of the innermost level first, then
// outward; a qualified one by the item's reference name. Whatever the
// analysis does not know (a function in FROM, an unsupported construct)
// is an opaque item: it may hold any column, so a name not found while
// one is in sight is "unknown", never a problem.

// rcol is one column of a FROM item or of a query's result.
type rcol struct {
	name     string
	t        typ
	snapType string  // the snapshot's spelling, when the column is a table column passed through
	notNull  bool    // provably never NULL (before any outer join)
	src      *srcCol // the table column it is, when it is one
	system   bool    // a system column (ctid, xmin, ...): found by name, not in *
	param    int     // $n when the result column is a placeholder alone
	paramPos int
}

// srcCol names a table column.
type srcCol struct {
	table *tableInfo
	col   int
}

func (s *srcCol) info() colInfo { return s.table.cols[s.col] }

// item is one FROM item as name resolution sees it (PostgreSQL's
// ParseNamespaceItem).
type item struct {
	refname     string
	anyRef      bool // its reference name is not known: any qualifier may mean it
	cols        []rcol
	opaque      bool // it may have columns besides cols
	relVisible  bool // can be named as a qualifier
	colsVisible bool // its columns can be named unqualified
	lateralOnly bool // visible only to LATERAL items (during FROM processing)
	nulled      bool // on the nullable side of an outer join
	table       *tableInfo
}

// cte is one WITH query.
type cte struct {
	name    string
	cols    []rcol
	opaque  bool
	pending bool // a forward reference in WITH RECURSIVE: not analysed yet
}

// level is one query level.
type level struct {
	parent        *level
	items         []*item
	onItems       []*item // the items an ON clause sees, while it is analysed
	ctes          []*cte
	lateralActive bool
	groupingSets  bool // GROUP BY with ROLLUP, CUBE or GROUPING SETS: grouped columns may be NULL
	// targets holds the result columns, for ORDER BY and GROUP BY names.
	targets []targetName
}

// targetName is a result column's name and value, for ORDER BY.
type targetName struct {
	name string
	e    expr
}

// visible returns the items a lookup at this level may see.
func (lv *level) visible() []*item {
	if lv.onItems != nil {
		return lv.onItems
	}
	return lv.items
}

// outcome of a lookup.
type outcome int

const (
	found outcome = iota
	notFound
	unknown   // the analysis cannot tell
	ambiguous // certainly ambiguous
)

// colRef is a resolved column reference.
type colRef struct {
	it  *item
	col *rcol
	lv  *level // the level it was found at
}

// findColumn resolves an unqualified column name.
func (lv *level) findColumn(name string) (outcome, colRef) {
	for l := lv; l != nil; l = l.parent {
		matches := 0
		var ref colRef
		opaque := false
		for _, it := range l.visible() {
			if !it.colsVisible || (it.lateralOnly && !l.lateralActive) {
				continue
			}
			if it.opaque {
				opaque = true
			}
			for i := range it.cols {
				if it.cols[i].name == name {
					matches++
					ref = colRef{it: it, col: &it.cols[i], lv: l}
				}
			}
		}
		switch {
		case matches > 1:
			return ambiguous, ref
		case matches == 1:
			return found, ref
		case opaque:
			return unknown, colRef{}
		}
	}
	return notFound, colRef{}
}

// hiddenColumn reports whether an item the lookup could not see (outside
// an ON clause, or lateral-only) has a column of that name, or is opaque:
// PostgreSQL's error then names another cause, so no problem is reported.
func (lv *level) hiddenColumn(name string) bool {
	for l := lv; l != nil; l = l.parent {
		for _, it := range l.items {
			visible := it.colsVisible && !(it.lateralOnly && !l.lateralActive) && contains(l.visible(), it)
			if visible {
				continue
			}
			if it.opaque {
				return true
			}
			for _, c := range it.cols {
				if c.name == name {
					return true
				}
			}
		}
	}
	return false
}

// findItem resolves a qualifier to a FROM item.
func (lv *level) findItem(ref string) (outcome, *item, *level) {
	for l := lv; l != nil; l = l.parent {
		var match *item
		n := 0
		anyRef := false
		for _, it := range l.visible() {
			if !it.relVisible || (it.lateralOnly && !l.lateralActive) {
				continue
			}
			if it.anyRef {
				anyRef = true
			}
			if it.refname == ref {
				match = it
				n++
			}
		}
		switch {
		case n > 1:
			return unknown, nil, nil // "table reference is ambiguous": not a code of ours
		case n == 1 && anyRef:
			return unknown, match, l // another item might carry the same name
		case n == 1:
			return found, match, l
		case anyRef:
			return unknown, nil, nil
		}
	}
	return notFound, nil, nil
}

// hiddenItem reports whether an item of that name exists anywhere in the
// levels, visible or not, or whether some item's name is not known.
func (lv *level) hiddenItem(ref string) bool {
	for l := lv; l != nil; l = l.parent {
		for _, it := range l.items {
			if it.anyRef || (it.relVisible && it.refname == ref) {
				return true
			}
		}
	}
	return false
}

// findCTE finds a WITH query by name, innermost level first.
func (lv *level) findCTE(name string) *cte {
	for l := lv; l != nil; l = l.parent {
		for i := len(l.ctes) - 1; i >= 0; i-- {
			if l.ctes[i].name == name {
				return l.ctes[i]
			}
		}
	}
	return nil
}

func contains(items []*item, it *item) bool {
	for _, x := range items {
		if x == it {
			return true
		}
	}
	return false
}

// columnOf finds a column of an item by name (system columns included).
func (it *item) columnOf(name string) (*rcol, int) {
	var c *rcol
	n := 0
	for i := range it.cols {
		if it.cols[i].name == name {
			if c == nil {
				c = &it.cols[i]
			}
			n++
		}
	}
	return c, n
}

// systemColumns are the columns every table has besides its own.
var systemColumns = []rcol{
	{name: "ctid", t: typ{base: "tid"}, notNull: true, system: true},
	{name: "xmin", t: typ{base: "xid"}, notNull: true, system: true},
	{name: "cmin", t: typ{base: "cid"}, notNull: true, system: true},
	{name: "xmax", t: typ{base: "xid"}, notNull: true, system: true},
	{name: "cmax", t: typ{base: "cid"}, notNull: true, system: true},
	{name: "tableoid", t: typ{base: "oid"}, notNull: true, system: true},
}

// tableItem builds the item of a table, under a reference name.
func tableItem(t *tableInfo, refname string) *item {
	it := &item{refname: refname, relVisible: true, colsVisible: true, table: t}
	it.cols = make([]rcol, 0, len(t.cols)+len(systemColumns))
	for i, c := range t.cols {
		it.cols = append(it.cols, rcol{
			name: c.name, t: c.t, snapType: c.snapType, notNull: c.notNull,
			src: &srcCol{table: t, col: i},
		})
	}
	for _, c := range systemColumns {
		if _, dup := t.byName[c.name]; !dup {
			it.cols = append(it.cols, c)
		}
	}
	return it
}

// userColumns returns the columns * expands to.
func (it *item) userColumns() []rcol {
	out := make([]rcol, 0, len(it.cols))
	for _, c := range it.cols {
		if !c.system {
			out = append(out, c)
		}
	}
	return out
}

// applyAliases renames the first columns by a column alias list t(a, b).
// ok is false when the list is longer than the known columns.
func applyAliases(cols []rcol, names []string, opaque bool) ([]rcol, bool) {
	out := append([]rcol(nil), cols...)
	j := 0
	for i := range out {
		if out[i].system {
			continue
		}
		if j >= len(names) {
			break
		}
		out[i].name = names[j]
		j++
	}
	return out, j == len(names) || opaque
}
