package store

import (
	"cmp"
	"slices"
	"strings"
)

// Edges a walk reads for itself (see the comment at the top of
// joinpath.go). At a table v with l joins still to make, a walk takes only
// the edges to tables within l-1 joins of "to" (toGo). It finds them
// three ways:
//
//   - from the levels read, when they hold all such edges: v's level was
//     read, or every table within l-1 joins of "to" had its level read
//     (l <= radius[1]);
//   - probed: when the tables within l-1 joins of "to" are those whose
//     levels were read and the few on side 1's frontier, the edges from v
//     to the frontier are read by primary key, a batch of tables like v at
//     a time, and merged with the edges the levels read;
//   - paged: otherwise v's own edges, read a page at a time in walk order.
//
// Every foreign key read for the first time counts against the search's
// budget, and so does every pair of tables a probe asks about.

var (
	// qJoinOwnKeys reads the foreign keys of table ?3 in connection ?2 of
	// release ?1 that are edges: to another table of the release, in the
	// connection; at most ?4. Each row: position, referenced table.
	qJoinOwnKeys = readQuery(`
SELECT f.position, f.ref_table
FROM tables t JOIN foreign_keys f ON f.table_id = t.id
WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3
	AND f.ref_connection = ?2 AND f.ref_table <> ?3
	AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = f.ref_table)
LIMIT ?4`)

	// qJoinReferrers reads a page of the foreign keys pointing at table ?3
	// from other tables of connection ?2 in release ?1, in walk order (the
	// holding table's name, then the key's position: the primary key's
	// order), after the key (?4, ?5); at most ?6. Each row: holding table,
	// position.
	qJoinReferrers = readQuery(`
SELECT f.table_name, f.position FROM foreign_keys f
WHERE f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = ?3 AND f.connection = ?2
	AND (f.table_name, f.position) > (?4, ?5) AND f.table_name <> ?3
ORDER BY f.table_name, f.position
LIMIT ?6`)
)

// Page sizes of the reads of a walk: they start small, for a walk that
// needs the first few edges of a big table, and double.
const (
	firstPage = 32
	lastPage  = 1024
)

// lazyAdj is the edges of one table that a walk has read, in walk order:
// its own keys, all read at once and sorted, merged with the keys of
// other tables pointing at it, read a page at a time in walk order.
type lazyAdj struct {
	v        string
	list     []*joinEdge // merged so far, in walk order
	own      []*joinEdge // own keys not merged yet
	refs     []*joinEdge // referring keys of the last page not merged yet
	ownRead  bool
	refsDone bool
	after    string // the last referring key read: holding table, position
	afterPos int
	page     int
}

// left is how many more edges the budget allows; when none, the answer
// is cut.
func (js *joinSearch) left() int {
	n := joinEdgeBudget - js.edges
	if n <= 0 {
		js.truncated = true
	}
	return n
}

// edge returns the one edge object of a foreign key; a new one counts
// against the budget.
func (js *joinSearch) edge(owner string, pos int, ref string) *joinEdge {
	key := joinKey{owner, pos}
	if e := js.byKey[key]; e != nil {
		return e
	}
	e := &joinEdge{owner: owner, pos: pos, ref: ref}
	js.byKey[key] = e
	js.edges++
	return e
}

// joinKey names a foreign key: its table and position.
type joinKey struct {
	owner string
	pos   int
}

// walkOrder orders the edges of table v as a walk takes them.
func walkOrder(v string) func(a, b *joinEdge) int {
	return func(a, b *joinEdge) int {
		return cmp.Or(strings.Compare(a.other(v), b.other(v)), strings.Compare(a.owner, b.owner), cmp.Compare(a.pos, b.pos))
	}
}

// An edgeIter gives the edges of a table in walk order: a list at hand
// (fixed), or read as needed (lazy).
type edgeIter struct {
	js    *joinSearch
	fixed []*joinEdge
	lazy  *lazyAdj
}

// How a walk finds a table's edges; see the comment at the top.
const (
	fromLevels = iota
	probed
	paged
)

// how says how a walk with l joins to make from v finds v's edges.
func (js *joinSearch) how(v string, l int) int {
	switch {
	case js.full[v] || l <= js.radius[1] || js.done[1]:
		return fromLevels
	case l-1 == js.radius[1] && len(js.frontier[1]) <= probeTargets:
		return probed
	}
	return paged
}

// edgesFor returns the edges of v that a walk with l joins to make from v
// needs, in walk order, and perhaps more. false: the walk must stop.
func (js *joinSearch) edgesFor(v string, l int) (edgeIter, bool) {
	switch js.how(v, l) {
	case fromLevels:
		return edgeIter{js: js, fixed: js.edgesOf(v)}, true
	case probed:
		if _, ok := js.probes[v]; !ok && !js.probe([]string{v}) {
			return edgeIter{}, false
		}
		return edgeIter{js: js, fixed: js.probes[v]}, true
	}
	a := js.lazy[v]
	if a == nil {
		a = &lazyAdj{v: v, afterPos: -1, page: firstPage}
		js.lazy[v] = a
	}
	return edgeIter{js: js, lazy: a}, true
}

// at returns edge i, reading more when needed; false at the end, when
// the budget ran out (truncated) or a read failed (js.err).
func (it edgeIter) at(i int) (*joinEdge, bool) {
	if it.lazy == nil {
		if i < len(it.fixed) {
			return it.fixed[i], true
		}
		return nil, false
	}
	for len(it.lazy.list) <= i {
		if !it.js.more(it.lazy) {
			return nil, false
		}
	}
	return it.lazy.list[i], true
}

// loaded returns the edges read so far, from i on, without reading.
func (it edgeIter) loaded(i int) []*joinEdge {
	l := it.fixed
	if a := it.lazy; a != nil {
		for a.ownRead && (len(a.refs) > 0 || a.refsDone) && (len(a.own) > 0 || len(a.refs) > 0) {
			a.merge()
		}
		l = a.list
	}
	if i >= len(l) {
		return nil
	}
	return l[i:]
}

// more merges the next edge of a into its list, reading what it needs.
// It reports false at the end of a's edges, or when it cannot read.
func (js *joinSearch) more(a *lazyAdj) bool {
	if !a.ownRead {
		if !js.readOwn(a) {
			return false
		}
	}
	if len(a.refs) == 0 && !a.refsDone {
		if !js.readReferrers(a) {
			return false
		}
	}
	if len(a.own) == 0 && len(a.refs) == 0 {
		return false
	}
	a.merge()
	return true
}

// merge moves the first of a's own keys and referring keys read into
// its list; there must be one, and all the referring keys must be read
// when none is buffered.
func (a *lazyAdj) merge() {
	if len(a.refs) == 0 || (len(a.own) > 0 && walkOrder(a.v)(a.own[0], a.refs[0]) < 0) {
		a.list, a.own = append(a.list, a.own[0]), a.own[1:]
		return
	}
	a.list, a.refs = append(a.list, a.refs[0]), a.refs[1:]
}

// readOwn reads the own keys of a's table: all of them, or none when
// they may be more than the budget has left.
func (js *joinSearch) readOwn(a *lazyAdj) bool {
	left := js.left()
	if left <= 0 {
		return false
	}
	rows, err := js.tx.query(js.ctx, qJoinOwnKeys, js.rel, js.conn, a.v, left+1)
	if err != nil {
		js.err = err
		return false
	}
	defer rows.Close()
	type key struct {
		pos int
		ref string
	}
	var keys []key
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.pos, &k.ref); err != nil {
			js.err = err
			return false
		}
		keys = append(keys, k)
	}
	if js.err = rows.Err(); js.err != nil {
		return false
	}
	if len(keys) > left {
		js.truncated = true
		return false
	}
	for _, k := range keys {
		a.own = append(a.own, js.edge(a.v, k.pos, k.ref))
	}
	slices.SortFunc(a.own, walkOrder(a.v))
	a.ownRead = true
	return true
}

// readReferrers reads the next page of the keys pointing at a's table.
func (js *joinSearch) readReferrers(a *lazyAdj) bool {
	n := min(a.page, js.left())
	if n <= 0 {
		return false
	}
	rows, err := js.tx.query(js.ctx, qJoinReferrers, js.rel, js.conn, a.v, a.after, a.afterPos, n)
	if err != nil {
		js.err = err
		return false
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var owner string
		var pos int
		if err := rows.Scan(&owner, &pos); err != nil {
			js.err = err
			return false
		}
		a.refs = append(a.refs, js.edge(owner, pos, a.v))
		a.after, a.afterPos = owner, pos
		got++
	}
	if js.err = rows.Err(); js.err != nil {
		return false
	}
	a.refsDone = got < n // fewer than asked: the table's keys ended
	a.page = min(2*a.page, lastPage)
	return true
}
