package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The search behind JoinPaths; see the comment at the top of joinpath.go.

// A joinEdge is a foreign key: owner's key number pos, pointing at ref.
// Its columns are read only for the paths given (keyColumns).
type joinEdge struct {
	owner, ref    string
	pos           int
	cols, refCols []string
}

func (e *joinEdge) other(v string) string {
	if e.owner == v {
		return e.ref
	}
	return e.owner
}

// joinSearch is one search; see the comment at the top of the file.
// Side 0 searches from "from", side 1 from "to".
type joinSearch struct {
	ctx      context.Context
	tx       readTx
	rel      int64
	conn     string
	from, to string
	limit    int

	adj      map[string][]*joinEdge // the edges the levels read, by each of their tables
	sorted   map[string]bool        // adj[v] is in walk order
	seen     map[joinKey]bool       // edges in adj
	full     map[string]bool        // tables whose every edge is in adj: those of the levels read
	dist     [2]map[string]int      // distance to each end, within radius
	frontier [2][]string            // the tables at distance radius
	radius   [2]int
	done     [2]bool // the side's whole component is read
	blocked  [2]bool // the side's next level is more than the budget left
	edges    int     // distinct edges read, pairs of tables probed (joinadj.go), closeCost a meeting (joinclose.go)
	steps    int     // partial paths extended

	byKey  map[joinKey]*joinEdge  // every edge object, one per key
	lazy   map[string]*lazyAdj    // edges a walk paged, by table
	probes map[string][]*joinEdge // edges a walk probed, by table; until a level is read
	batch  int                    // pairs of tables the next prefetch may ask about

	counts  map[string]referrerCount // keys pointing at tables, counted (joinclose.go)
	lookups int                      // referrers that meetings looked up, against joinLookupBudget

	paths     []JoinPath
	bytes     int
	truncated bool
	err       error // of a read while walking
}

func newJoinSearch(ctx context.Context, tx readTx, rel int64, from, to TableRef, limit int) *joinSearch {
	return &joinSearch{ctx: ctx, tx: tx, rel: rel, conn: from.Connection, from: from.Name, to: to.Name, limit: limit,
		adj: map[string][]*joinEdge{}, sorted: map[string]bool{}, seen: map[joinKey]bool{}, full: map[string]bool{},
		dist:     [2]map[string]int{{from.Name: 0}, {to.Name: 0}},
		frontier: [2][]string{{from.Name}, {to.Name}},
		byKey:    map[joinKey]*joinEdge{}, lazy: map[string]*lazyAdj{}, probes: map[string][]*joinEdge{}, batch: firstPage,
		counts: map[string]referrerCount{}}
}

// run lists the paths of 1 to maxHops joins, shortest first, until limit
// are found or a bound stops the search.
func (js *joinSearch) run(maxHops int) error {
	for n := 1; n <= maxHops && len(js.paths) < js.limit && !js.truncated; n++ {
		if n <= meetHops {
			if !js.meet(n) {
				return js.err
			}
			continue
		}
		for !js.done[0] && !js.done[1] && js.radius[0]+js.radius[1] < n {
			side := js.pick()
			if side < 0 {
				break // the walk reads the rest as it goes
			}
			ok, err := js.expand(side)
			if err != nil {
				return err
			}
			js.blocked[side] = !ok
		}
		if _, ok := js.dist[0][js.to]; js.done[0] && !ok {
			return nil // "to" is not reachable at all
		}
		if _, ok := js.dist[1][js.from]; js.done[1] && !ok {
			return nil
		}
		js.walk(n)
		if js.err != nil {
			return js.err
		}
	}
	return nil
}

// pick chooses the side to widen: the one with fewer tables on its
// frontier, else the one that has gone less far, else "from"'s; never a
// side whose next level alone is more than the budget left. -1 when both
// are so.
func (js *joinSearch) pick() int {
	switch {
	case js.blocked[0] && js.blocked[1]:
		return -1
	case js.blocked[0]:
		return 1
	case js.blocked[1]:
		return 0
	}
	f0, f1 := len(js.frontier[0]), len(js.frontier[1])
	if f1 < f0 || (f1 == f0 && js.radius[1] < js.radius[0]) {
		return 1
	}
	return 0
}

// expand reads the edges of one side's frontier and moves the frontier
// one join out. It reports false, and changes nothing, when the level
// holds more edges than the budget has left: a read that fails so costs
// at most that much, and happens at most once a side, so a search reads at
// most three budgets' worth of rows.
func (js *joinSearch) expand(side int) (bool, error) {
	// A table the other side's levels read has all its edges read.
	var unread []string
	for _, v := range js.frontier[side] {
		if !js.full[v] {
			unread = append(unread, v)
		}
	}
	if len(unread) > 0 {
		names, err := json.Marshal(unread)
		if err != nil {
			return false, err
		}
		// Each key comes once; those read already are among the known
		// edges of the tables, so more rows than those and the budget left
		// hold more new keys than are left.
		known := 0
		for _, v := range unread {
			known += len(js.adj[v])
		}
		most := joinEdgeBudget - js.edges + known
		var n int
		var text string
		if err := js.tx.row(js.ctx, qJoinEdges, js.rel, js.conn, string(names), most+1).Scan(&n, &text); err != nil {
			return false, err
		}
		if n > most {
			return false, nil
		}
		var recs []joinRec
		fresh := map[joinKey]bool{}
		if text != "" {
			for _, s := range strings.Split(text, "\x1e") {
				rec, err := parseJoinRec(s)
				if err != nil {
					return false, err
				}
				if js.byKey[rec.key] == nil {
					fresh[rec.key] = true
				}
				recs = append(recs, rec)
			}
		}
		if js.edges+len(fresh) > joinEdgeBudget {
			return false, nil
		}
		for _, rec := range recs {
			js.add(rec)
		}
	}
	var next []string
	r := js.radius[side]
	for _, v := range js.frontier[side] {
		js.full[v] = true
		for _, e := range js.adj[v] {
			w := e.other(v)
			if _, ok := js.dist[side][w]; !ok {
				js.dist[side][w] = r + 1
				next = append(next, w)
			}
		}
	}
	slices.Sort(next)
	js.frontier[side], js.radius[side] = next, r+1
	clear(js.probes) // made of the edges read and side 1's frontier
	js.done[side] = len(next) == 0
	return true, nil
}

// A joinRec is a foreign key as qJoinEdges reads it.
type joinRec struct {
	key joinKey
	ref string
}

// parseJoinRec reads one record of qJoinEdges.
func parseJoinRec(rec string) (joinRec, error) {
	f := strings.Split(rec, "\x1f")
	if len(f) != 3 {
		return joinRec{}, fmt.Errorf("join path: malformed foreign key record %q", rec)
	}
	pos, err := strconv.Atoi(f[1])
	if err != nil {
		return joinRec{}, fmt.Errorf("join path: malformed foreign key position %q", f[1])
	}
	return joinRec{joinKey{f[0], pos}, f[2]}, nil
}

// add records an edge a level read in adj, once.
func (js *joinSearch) add(rec joinRec) {
	if js.seen[rec.key] {
		return
	}
	js.seen[rec.key] = true
	e := js.edge(rec.key.owner, rec.key.pos, rec.ref)
	js.adj[e.owner] = append(js.adj[e.owner], e)
	js.adj[e.ref] = append(js.adj[e.ref], e)
	delete(js.sorted, e.owner)
	delete(js.sorted, e.ref)
}

// edgesOf returns v's edges in walk order: by the table they lead to, then
// the table holding the key, then the key's position.
func (js *joinSearch) edgesOf(v string) []*joinEdge {
	es := js.adj[v]
	if !js.sorted[v] {
		slices.SortFunc(es, func(a, b *joinEdge) int {
			return cmp.Or(strings.Compare(a.other(v), b.other(v)), strings.Compare(a.owner, b.owner), cmp.Compare(a.pos, b.pos))
		})
		js.sorted[v] = true
	}
	return es
}

// toGo is the fewest joins from v to "to", or a lower bound of them when v
// lies beyond what side 1 has read.
func (js *joinSearch) toGo(v string) int {
	if d, ok := js.dist[1][v]; ok {
		return d
	}
	if js.done[1] {
		return unreachable
	}
	return js.radius[1] + 1
}

// walk lists the paths of exactly n joins, in order, depth first. It
// takes a table's edges from the levels read when they hold all it needs,
// and reads them otherwise (edgesFor, in joinadj.go and joinprobe.go).
func (js *joinSearch) walk(n int) {
	if js.toGo(js.from) > n {
		return
	}
	tables := []string{js.from}
	var hops []*joinEdge
	onPath := map[string]bool{js.from: true}
	var step func(v string) bool // false: stop the whole walk
	step = func(v string) bool {
		l := n - len(hops) // joins still to make from v
		if l == 0 {
			if v == js.to {
				return js.emit(tables, hops)
			}
			return true
		}
		if meets, ok := js.closes(v, l); !ok || meets {
			return ok && js.close(joinEnd{tables, hops}, l)
		}
		it, ok := js.edgesFor(v, l)
		if !ok {
			return false
		}
		// A table the walk just entered from v and found no path through:
		// parallel keys to it come next and would find none either.
		dead := ""
		for i := 0; ; i++ {
			e, ok := it.at(i)
			if !ok {
				return !js.truncated && js.err == nil
			}
			js.steps++
			if js.steps > joinStepBudget {
				js.truncated = true
				return false
			}
			w := e.other(v)
			if w == dead || onPath[w] || (w == js.to && l > 1) || js.toGo(w) > l-1 {
				continue
			}
			if js.needsProbe(w, l-1) && !js.prefetch(v, it, i, l-1, onPath) {
				return false
			}
			onPath[w] = true
			tables, hops = append(tables, w), append(hops, e)
			found := len(js.paths)
			ok = step(w)
			tables, hops = tables[:len(tables)-1], hops[:len(hops)-1]
			delete(onPath, w)
			if !ok {
				return false
			}
			if dead = ""; len(js.paths) == found {
				dead = w
			}
		}
	}
	step(js.from)
}
