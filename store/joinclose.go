package store

// How a search uses the meetings of joinmeet.go: the paths of 1, 2 and 3
// joins come from them alone, and a walk for longer paths ends with one
// (closes the path) at a table with 2 or 3 joins left to make whose keys
// it would otherwise page through, when more than a page of keys point at
// it. See the comment at the top of joinpath.go.

// Bounds of the meetings.
const (
	// meetHops is the most joins of the paths listed by meetings alone.
	meetHops = 3
	// fewReferrers is the most referrers of an end whose referrers are
	// looked up one by one among the other's; with more at both ends,
	// the two ranges are merged.
	fewReferrers = 1024
	// joinLookupBudget is the most keys pointing at the ends of its
	// meetings that a search looks up: those of both ends for 3 joins and
	// for a merge, those of the end with fewer for a lookup of 2 joins. The
	// 2-join meeting between "from" and "to" is not counted: it is one
	// statement, done whatever the fan-out.
	joinLookupBudget = 50_000
	// closeCost is what a walk's meeting counts against joinEdgeBudget: a
	// few statements, like the keys of a few small tables.
	closeCost = 20
)

// meet lists the paths of exactly n joins, n <= meetHops, between "from"
// and "to"; it reports false, with js.err, when a read failed.
func (js *joinSearch) meet(n int) bool {
	p := joinEnd{tables: []string{js.from}}
	switch n {
	case 1:
		keys, ok := js.between([]string{js.to}, js.from)
		for _, e := range keys[js.to] {
			if !js.emitVia(p, []*joinEdge{e}, js.to) {
				break
			}
		}
		return ok && js.err == nil
	case 2:
		js.meet2(p, false)
	default:
		js.meet3(p)
	}
	return js.err == nil
}

// closes tells whether a walk at v with l joins left ends its path with a
// meeting (close); false, false when a read failed.
func (js *joinSearch) closes(v string, l int) (bool, bool) {
	if (l != 2 && l != 3) || js.how(v, l) != paged {
		return false, true
	}
	n, ok := js.referrers(v, firstPage+1)
	return n > firstPage, ok
}

// close ends a walk's path p, at a table with l joins left to make, by a
// meeting. It reports whether the walk should go on.
func (js *joinSearch) close(p joinEnd, l int) bool {
	if js.edges+closeCost > joinEdgeBudget {
		js.truncated = true
		return false
	}
	js.edges += closeCost
	if l == 2 {
		return js.meet2(p, true)
	}
	return js.meet3(p)
}

// charge counts a meeting between x and y against joinLookupBudget: the
// referrers of x, or of both when not lookup. When they are more than
// are left, the answer is cut and charge reports false.
func (js *joinSearch) charge(x, y string, lookup bool) bool {
	left := joinLookupBudget - js.lookups
	cost, ok := js.referrers(x, left+1)
	if !ok {
		return false
	}
	if !lookup {
		b, ok := js.referrers(y, left+1)
		if !ok {
			return false
		}
		cost += b
	}
	if cost > left {
		js.truncated = true
		return false
	}
	js.lookups += cost
	return true
}

// referrerCounts returns how many keys point at x and at y, each counted
// up to most.
func (js *joinSearch) referrerCounts(x, y string, most int) (int, int, bool) {
	a, ok := js.referrers(x, most)
	if !ok {
		return 0, 0, false
	}
	b, ok := js.referrers(y, most)
	return a, b, ok
}

// referrers returns how many keys point at v from other tables, counted
// up to most: read once, and again only for a higher bound when the count
// reached the last one.
func (js *joinSearch) referrers(v string, most int) (int, bool) {
	if c, ok := js.counts[v]; ok && (c.n < c.most || c.most >= most) {
		return min(c.n, most), true
	}
	var n int
	if err := js.tx.row(js.ctx, qJoinReferrerCount, js.rel, js.conn, v, most).Scan(&n); js.fail(err) {
		return 0, false
	}
	js.counts[v] = referrerCount{n, most}
	return n, true
}

// A referrerCount is how many keys point at a table, counted up to most.
type referrerCount struct{ n, most int }

// fail records err, if any, as the search's, and reports whether there
// was one.
func (js *joinSearch) fail(err error) bool {
	if err != nil {
		js.err = err
		return true
	}
	return false
}
