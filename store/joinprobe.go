package store

import (
	"encoding/json"
	"slices"
)

// Probes: a walk with l joins to make from table v takes only edges to
// tables within l-1 joins of "to". When those are the tables whose
// levels were read and the few on side 1's frontier, it reads v's edges
// to the frontier by primary key (qJoinBetween), for a batch of tables
// like v at once, and merges them with the edges the levels read. So a
// walk from a table that 10,000 others point at reads a page of them and
// one probe, not their 10,000 edges.

var (
	// qJoinBetween reads the foreign keys between each table named in the
	// JSON array ?3 and each named in ?4, both ways, in connection ?2 of
	// release ?1, by primary key. Each row: the table of ?3, then the key's
	// holding table, position and referenced table.
	qJoinBetween = readQuery(`
SELECT a.value, f.table_name, f.position, f.ref_table
FROM json_each(?3) a CROSS JOIN json_each(?4) b
CROSS JOIN foreign_keys f ON f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = b.value
	AND f.connection = ?2 AND f.table_name = a.value
WHERE a.value <> b.value
UNION ALL
SELECT a.value, f.table_name, f.position, f.ref_table
FROM json_each(?3) a CROSS JOIN json_each(?4) b
CROSS JOIN foreign_keys f ON f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = a.value
	AND f.connection = ?2 AND f.table_name = b.value
WHERE a.value <> b.value`)
)

// probeTargets is the most tables on side 1's frontier that a probe
// checks each table against; beyond, a walk pages the table's edges.
const probeTargets = 64

// needsProbe tells whether a walk with l joins to make from w must probe
// w's edges first.
func (js *joinSearch) needsProbe(w string, l int) bool {
	if l == 0 || js.how(w, l) != probed {
		return false
	}
	_, ok := js.probes[w]
	return !ok
}

// probe reads the edges between each of names and the tables on side
// 1's frontier, and keeps for each name those and the edges the levels
// read, in walk order (probes). It asks about as many names as the budget
// has left for.
func (js *joinSearch) probe(names []string) bool {
	targets := js.frontier[1]
	names = names[:min(len(names), max(js.left(), 0)/max(len(targets), 1))]
	if len(names) == 0 {
		js.truncated = true
		return false
	}
	found := map[string][]*joinEdge{}
	if len(targets) > 0 {
		a, _ := json.Marshal(names)
		b, _ := json.Marshal(targets)
		rows, err := js.tx.query(js.ctx, qJoinBetween, js.rel, js.conn, string(a), string(b))
		if err != nil {
			js.err = err
			return false
		}
		defer rows.Close()
		for rows.Next() {
			var name, owner, ref string
			var pos int
			if err := rows.Scan(&name, &owner, &pos, &ref); err != nil {
				js.err = err
				return false
			}
			found[name] = append(found[name], js.edge(owner, pos, ref))
		}
		if js.err = rows.Err(); js.err != nil {
			return false
		}
		js.edges += len(names) * len(targets)
	}
	for _, v := range names {
		es := slices.Clone(js.adj[v])
		for _, e := range found[v] {
			if !slices.Contains(es, e) {
				es = append(es, e)
			}
		}
		slices.SortFunc(es, walkOrder(v))
		js.probes[v] = es
	}
	return true
}

// prefetch probes, in one read, the tables after index i in u's edges
// (the next one the walk takes among them) that a walk with l joins to
// make from them would probe: a walk that reaches many tables from one
// reads their edges a batch at a time.
func (js *joinSearch) prefetch(u string, it edgeIter, i, l int, onPath map[string]bool) bool {
	names := []string{}
	seen := map[string]bool{}
	for _, e := range it.loaded(i) {
		if len(names)*max(len(js.frontier[1]), 1) >= js.batch {
			break
		}
		w := e.other(u)
		if seen[w] || onPath[w] || w == js.to || js.toGo(w) > l || !js.needsProbe(w, l) {
			continue
		}
		seen[w] = true
		names = append(names, w)
	}
	js.batch = min(2*js.batch, lastPage)
	return js.probe(names)
}
