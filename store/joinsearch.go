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

	adj      map[string][]*joinEdge // the edges read, by each of their tables
	sorted   map[string]bool        // adj[v] is in walk order
	seen     map[[2]string]bool     // edges read: holding table, position
	dist     [2]map[string]int      // distance to each end, within radius
	frontier [2][]string            // the tables at distance radius
	radius   [2]int
	done     [2]bool // the side's whole component is read
	blocked  [2]bool // the side's next level is more than the budget left
	edges    int     // edges read
	steps    int     // partial paths extended

	paths     []JoinPath
	bytes     int
	truncated bool
	err       error // of a read while walking
}

func newJoinSearch(ctx context.Context, tx readTx, rel int64, from, to TableRef, limit int) *joinSearch {
	return &joinSearch{ctx: ctx, tx: tx, rel: rel, conn: from.Connection, from: from.Name, to: to.Name, limit: limit,
		adj: map[string][]*joinEdge{}, sorted: map[string]bool{}, seen: map[[2]string]bool{},
		dist:     [2]map[string]int{{from.Name: 0}, {to.Name: 0}},
		frontier: [2][]string{{from.Name}, {to.Name}}}
}

// run lists the paths of 1 to maxHops joins, shortest first, until limit
// are found or a bound stops the search.
func (js *joinSearch) run(maxHops int) error {
	for n := 1; n <= maxHops && len(js.paths) < js.limit && !js.truncated; n++ {
		for !js.done[0] && !js.done[1] && js.radius[0]+js.radius[1] < n {
			side := js.pick()
			if side < 0 {
				js.truncated = true
				return nil
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
	names, err := json.Marshal(js.frontier[side])
	if err != nil {
		return false, err
	}
	left := joinEdgeBudget - js.edges
	var n int
	var text string
	if err := js.tx.row(js.ctx, qJoinEdges, js.rel, js.conn, string(names), left+1).Scan(&n, &text); err != nil {
		return false, err
	}
	if n > left {
		return false, nil
	}
	js.edges += n
	if text != "" {
		for _, rec := range strings.Split(text, "\x1e") {
			if err := js.add(rec); err != nil {
				return false, err
			}
		}
	}
	var next []string
	r := js.radius[side]
	for _, v := range js.frontier[side] {
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
	js.done[side] = len(next) == 0
	return true, nil
}

// add records one edge read by qJoinEdges, once.
func (js *joinSearch) add(rec string) error {
	f := strings.Split(rec, "\x1f")
	if len(f) != 3 {
		return fmt.Errorf("join path: malformed foreign key record %q", rec)
	}
	pos, err := strconv.Atoi(f[1])
	if err != nil {
		return fmt.Errorf("join path: malformed foreign key position %q", f[1])
	}
	key := [2]string{f[0], f[1]}
	if js.seen[key] {
		return nil
	}
	js.seen[key] = true
	e := &joinEdge{owner: f[0], pos: pos, ref: f[2]}
	js.adj[e.owner] = append(js.adj[e.owner], e)
	js.adj[e.ref] = append(js.adj[e.ref], e)
	delete(js.sorted, e.owner)
	delete(js.sorted, e.ref)
	return nil
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

// walk lists the paths of exactly n joins, in order, depth first.
func (js *joinSearch) walk(n int) {
	if js.toGo(js.from) > n {
		return
	}
	tables := []string{js.from}
	var hops []*joinEdge
	onPath := map[string]bool{js.from: true}
	var step func(v string) bool // false: stop the whole walk
	step = func(v string) bool {
		if len(hops) == n {
			if v == js.to {
				return js.emit(tables, hops)
			}
			return true
		}
		left := n - len(hops) - 1
		for _, e := range js.edgesOf(v) {
			js.steps++
			if js.steps > joinStepBudget {
				js.truncated = true
				return false
			}
			w := e.other(v)
			if onPath[w] || (w == js.to && left > 0) || js.toGo(w) > left {
				continue
			}
			onPath[w] = true
			tables, hops = append(tables, w), append(hops, e)
			ok := step(w)
			tables, hops = tables[:len(tables)-1], hops[:len(hops)-1]
			delete(onPath, w)
			if !ok {
				return false
			}
		}
		return true
	}
	step(js.from)
}

// emit adds a path found, if it fits in the answer. It reports whether
// the walk should go on.
func (js *joinSearch) emit(tables []string, hops []*joinEdge) bool {
	if err := js.keyColumns(hops); err != nil {
		js.err = err
		return false
	}
	p := JoinPath{Tables: slices.Clone(tables), Joins: make([]string, len(hops))}
	var sb strings.Builder
	sb.WriteString("FROM ")
	sb.WriteString(sqlName(tables[0]))
	for i, e := range hops {
		p.Joins[i] = joinCondition(e, tables[i+1], tables[i])
		sb.WriteString(" JOIN ")
		sb.WriteString(sqlName(tables[i+1]))
		sb.WriteString(" ON ")
		sb.WriteString(p.Joins[i])
	}
	p.SQL = sb.String()
	size, _ := json.Marshal(struct {
		T []string `json:"tables"`
		J []string `json:"joins"`
		S string   `json:"sql"`
	}{p.Tables, p.Joins, p.SQL})
	if js.bytes+len(size)+1 > joinAnswerBytes {
		js.truncated = true
		return false
	}
	js.bytes += len(size) + 1
	js.paths = append(js.paths, p)
	return len(js.paths) < js.limit
}

// keyColumns reads the columns of the keys of a path that lack them.
func (js *joinSearch) keyColumns(hops []*joinEdge) error {
	var want [][2]any
	byKey := map[[2]string]*joinEdge{}
	for _, e := range hops {
		if e.cols == nil {
			want = append(want, [2]any{e.owner, e.pos})
			byKey[[2]string{e.owner, strconv.Itoa(e.pos)}] = e
		}
	}
	if len(want) == 0 {
		return nil
	}
	list, err := json.Marshal(want)
	if err != nil {
		return err
	}
	rows, err := js.tx.query(js.ctx, qJoinKeyColumns, js.rel, js.conn, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, pos, cols, refCols string
		if err := rows.Scan(&owner, &pos, &cols, &refCols); err != nil {
			return err
		}
		if e := byKey[[2]string{owner, pos}]; e != nil {
			// Written by jsonList: arrays of strings, of the same length.
			if err := json.Unmarshal([]byte(cols), &e.cols); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(refCols), &e.refCols); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

// joinCondition is the ON condition that joins table next to table prev
// through e: next's columns first, as in
// "order_items.order_id = orders.id", every column of a composite key
// joined with AND.
func joinCondition(e *joinEdge, next, prev string) string {
	nextCols, prevCols := e.refCols, e.cols // prev holds the key
	if e.owner == next {
		nextCols, prevCols = e.cols, e.refCols
	}
	conds := make([]string, min(len(nextCols), len(prevCols)))
	for i := range conds {
		conds[i] = sqlName(next) + "." + sqlName(nextCols[i]) + " = " + sqlName(prev) + "." + sqlName(prevCols[i])
	}
	return strings.Join(conds, " AND ")
}
