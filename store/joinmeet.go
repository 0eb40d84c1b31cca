package store

import (
	"encoding/json"
	"slices"
)

// Paths of 2 and 3 joins, found by meeting in the middle (see the comment
// at the top of joinpath.go). Between tables X and Y, a table's
// neighbours N being the tables that point at it (one range of
// foreign_keys' primary key, in name order) and those it points at (its
// own keys):
//
//   - 2 joins: the tables of N(X) ∩ N(Y). The big part, the tables
//     pointing at both, is one statement: a merge of the two ranges
//     (SQLite's INTERSECT under ORDER BY), or, when one end has few
//     referrers, a primary-key lookup of each of them in the other's
//     range; the statement stops at the tables wanted.
//   - 3 joins: the keys between a table of N(X) and one of N(Y). Every
//     key is held by one of its two tables, so they are the own keys of
//     the tables of N(X) that point into N(Y), and those of N(Y) that point
//     into N(X): one lookup of own keys per neighbour, whatever the
//     neighbours' own fan-out.
//
// Each statement returns the first tables (or keys) in the order of the
// answer, as many as paths are still wanted: each gives at least one path,
// and the paths through a later one come after at least one path through
// each earlier one. The keys between the ends and those tables are then
// read by primary key (qJoinBetween). Tables in the JSON array ?6 (those
// of the path before X) are left out.

var (
	// qJoinReferrerCount counts the keys pointing at table ?3 from other
	// tables of connection ?2 in release ?1, up to ?4.
	qJoinReferrerCount = readQuery(`
SELECT count(*) FROM (SELECT 1 FROM foreign_keys
	WHERE release = ?1 AND ref_connection = ?2 AND ref_table = ?3 AND connection = ?2 AND table_name <> ?3 LIMIT ?4)`)

	// qJoinMiddlesByLookup lists the first ?5 tables, by name, other than
	// ?3, ?4 and those of ?6, joined by a key to both ?3 and ?4 in
	// connection ?2 of release ?1: those pointing at both, each of ?3's
	// referrers looked up among ?4's (so ?3 should be the end with fewer);
	// those an end points at (ox, oy: each once, however many keys lead
	// there), if joined to the other.
	qJoinMiddlesByLookup = readQuery(`
WITH
	ox(m) AS (
		SELECT DISTINCT g.ref_table FROM tables t JOIN foreign_keys g ON g.table_id = t.id
		WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3 AND g.ref_connection = ?2 AND g.ref_table NOT IN (?3, ?4)
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = g.ref_table)),
	oy(m) AS (
		SELECT DISTINCT g.ref_table FROM tables t JOIN foreign_keys g ON g.table_id = t.id
		WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?4 AND g.ref_connection = ?2 AND g.ref_table NOT IN (?3, ?4)
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = g.ref_table))
SELECT fx.table_name FROM foreign_keys fx
WHERE fx.release = ?1 AND fx.ref_connection = ?2 AND fx.ref_table = ?3 AND fx.connection = ?2 AND fx.table_name NOT IN (?3, ?4)
	AND EXISTS (SELECT 1 FROM foreign_keys fy WHERE fy.release = ?1 AND fy.ref_connection = ?2 AND fy.ref_table = ?4
		AND fy.connection = ?2 AND fy.table_name = fx.table_name)
	AND fx.table_name NOT IN (SELECT value FROM json_each(?6))
UNION
SELECT m FROM ox
WHERE m NOT IN (SELECT value FROM json_each(?6)) AND (m IN oy OR EXISTS (SELECT 1 FROM foreign_keys f
	WHERE f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = ?4 AND f.connection = ?2 AND f.table_name = ox.m))
UNION
SELECT m FROM oy
WHERE m NOT IN (SELECT value FROM json_each(?6)) AND EXISTS (SELECT 1 FROM foreign_keys f
	WHERE f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = ?3 AND f.connection = ?2 AND f.table_name = oy.m)
ORDER BY 1 LIMIT ?5`)

	// qJoinMiddlesByMerge is qJoinMiddlesByLookup for two ends with many
	// referrers: the tables pointing at both are the intersection of the
	// two ranges, which SQLite merges in order.
	qJoinMiddlesByMerge = readQuery(`
WITH
	ox(m) AS (
		SELECT DISTINCT g.ref_table FROM tables t JOIN foreign_keys g ON g.table_id = t.id
		WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3 AND g.ref_connection = ?2 AND g.ref_table NOT IN (?3, ?4)
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = g.ref_table)),
	oy(m) AS (
		SELECT DISTINCT g.ref_table FROM tables t JOIN foreign_keys g ON g.table_id = t.id
		WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?4 AND g.ref_connection = ?2 AND g.ref_table NOT IN (?3, ?4)
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = g.ref_table))
SELECT table_name FROM foreign_keys
WHERE release = ?1 AND ref_connection = ?2 AND ref_table = ?3 AND connection = ?2 AND table_name NOT IN (?3, ?4)
	AND table_name NOT IN (SELECT value FROM json_each(?6))
INTERSECT
SELECT table_name FROM foreign_keys
WHERE release = ?1 AND ref_connection = ?2 AND ref_table = ?4 AND connection = ?2
UNION
SELECT m FROM ox
WHERE m NOT IN (SELECT value FROM json_each(?6)) AND (m IN oy OR EXISTS (SELECT 1 FROM foreign_keys f
	WHERE f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = ?4 AND f.connection = ?2 AND f.table_name = ox.m))
UNION
SELECT m FROM oy
WHERE m NOT IN (SELECT value FROM json_each(?6)) AND EXISTS (SELECT 1 FROM foreign_keys f
	WHERE f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = ?3 AND f.connection = ?2 AND f.table_name = oy.m)
ORDER BY 1 LIMIT ?5`)

	// qJoinMiddleKeys lists the first ?5 keys, in connection ?2 of release
	// ?1, between a table M1 joined to ?3 and a table M2 joined to ?4, M1
	// and M2 other than ?3, ?4 and those of ?6, by M1, M2, the key's table
	// and position. Each row: M1, M2, holding table, position. The keys
	// held by a table of one side (ra, rb: those pointing at an end, each
	// once however many keys it has there; oa, ob: those an end points
	// at) into the other side: for the tables pointing at an end, the
	// other side as lists SQLite builds once; for the few an end points
	// at, a lookup in the other end's range. CROSS JOIN keeps the sides
	// the outer loops.
	qJoinMiddleKeys = readQuery(`
WITH
	ra(m, tid) AS (
		SELECT table_name, min(table_id) FROM foreign_keys
		WHERE release = ?1 AND ref_connection = ?2 AND ref_table = ?3 AND connection = ?2 AND table_name NOT IN (?3, ?4)
		GROUP BY table_name),
	rb(m, tid) AS (
		SELECT table_name, min(table_id) FROM foreign_keys
		WHERE release = ?1 AND ref_connection = ?2 AND ref_table = ?4 AND connection = ?2 AND table_name NOT IN (?3, ?4)
		GROUP BY table_name),
	oa(m) AS (
		SELECT DISTINCT g.ref_table FROM tables t JOIN foreign_keys g ON g.table_id = t.id
		WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3 AND g.ref_connection = ?2 AND g.ref_table NOT IN (?3, ?4)
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = g.ref_table)),
	ob(m) AS (
		SELECT DISTINCT g.ref_table FROM tables t JOIN foreign_keys g ON g.table_id = t.id
		WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?4 AND g.ref_connection = ?2 AND g.ref_table NOT IN (?3, ?4)
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = g.ref_table)),
	keys(m1, m2, owner, pos) AS (
		SELECT ra.m, f.ref_table, f.table_name, f.position
		FROM ra CROSS JOIN foreign_keys f ON f.table_id = ra.tid
		WHERE f.ref_connection = ?2 AND f.ref_table NOT IN (?3, ?4, ra.m)
			AND (f.ref_table IN (SELECT m FROM rb) OR f.ref_table IN ob)
		UNION
		SELECT t.name, f.ref_table, f.table_name, f.position
		FROM oa CROSS JOIN tables t ON t.release = ?1 AND t.connection = ?2 AND t.name = oa.m
		JOIN foreign_keys f ON f.table_id = t.id
		WHERE f.ref_connection = ?2 AND f.ref_table NOT IN (?3, ?4, t.name)
			AND (f.ref_table IN ob OR EXISTS (SELECT 1 FROM foreign_keys x WHERE x.release = ?1 AND x.ref_connection = ?2
				AND x.ref_table = ?4 AND x.connection = ?2 AND x.table_name = f.ref_table))
		UNION
		SELECT f.ref_table, rb.m, f.table_name, f.position
		FROM rb CROSS JOIN foreign_keys f ON f.table_id = rb.tid
		WHERE f.ref_connection = ?2 AND f.ref_table NOT IN (?3, ?4, rb.m)
			AND (f.ref_table IN (SELECT m FROM ra) OR f.ref_table IN oa)
		UNION
		SELECT f.ref_table, t.name, f.table_name, f.position
		FROM ob CROSS JOIN tables t ON t.release = ?1 AND t.connection = ?2 AND t.name = ob.m
		JOIN foreign_keys f ON f.table_id = t.id
		WHERE f.ref_connection = ?2 AND f.ref_table NOT IN (?3, ?4, t.name)
			AND (f.ref_table IN oa OR EXISTS (SELECT 1 FROM foreign_keys x WHERE x.release = ?1 AND x.ref_connection = ?2
				AND x.ref_table = ?3 AND x.connection = ?2 AND x.table_name = f.ref_table)))
SELECT m1, m2, owner, pos FROM keys
WHERE m1 NOT IN (SELECT value FROM json_each(?6)) AND m2 NOT IN (SELECT value FROM json_each(?6))
ORDER BY 1, 2, 3, 4 LIMIT ?5`)
)

// A joinEnd is the path a meeting extends: its tables, from "from" to X,
// and its keys.
type joinEnd struct {
	tables []string
	hops   []*joinEdge
}

func (p joinEnd) last() string { return p.tables[len(p.tables)-1] }

// emitVia adds the paths p, then tables, to "to", through keys, if they
// fit. It reports whether the search should go on.
func (js *joinSearch) emitVia(p joinEnd, keys []*joinEdge, tables ...string) bool {
	return js.emit(append(slices.Clone(p.tables), tables...), append(slices.Clone(p.hops), keys...))
}

// meet2 lists, in order, the first paths that continue p by 2 joins to
// "to", as many as are still wanted; false when the search must stop.
func (js *joinSearch) meet2(p joinEnd, charged bool) bool {
	x, y := p.last(), js.to
	a, b, ok := js.referrerCounts(x, y, fewReferrers)
	if !ok {
		return false
	}
	q := qJoinMiddlesByMerge
	switch {
	case b < fewReferrers && b < a:
		q, x, y = qJoinMiddlesByLookup, y, x
	case a < fewReferrers:
		q = qJoinMiddlesByLookup
	}
	if charged && !js.charge(x, y, q == qJoinMiddlesByLookup) {
		return false
	}
	mids, ok := js.names(q, x, y, p.tables)
	if !ok || len(mids) == 0 {
		return ok
	}
	first, ok := js.between(mids, p.last())
	if !ok {
		return false
	}
	second, ok := js.between(mids, js.to)
	for _, m := range mids {
		for _, e1 := range first[m] {
			for _, e2 := range second[m] {
				if !ok || !js.emitVia(p, []*joinEdge{e1, e2}, m, js.to) {
					return false
				}
			}
		}
	}
	return ok
}

// A joinMiddle is the key between the second and the third table of a
// path of 3 joins.
type joinMiddle struct {
	m1, m2 string
	e      *joinEdge
}

// meet3 lists, in order, the first paths that continue p by 3 joins to
// "to", as many as are still wanted; false when the search must stop,
// cut (truncated) when the ends have more referrers than the lookups left.
func (js *joinSearch) meet3(p joinEnd) bool {
	x := p.last()
	if !js.charge(x, js.to, false) {
		return false
	}
	excl, err := json.Marshal(p.tables)
	if js.fail(err) {
		return false
	}
	rows, err := js.tx.query(js.ctx, qJoinMiddleKeys, js.rel, js.conn, x, js.to, js.limit-len(js.paths), string(excl))
	if js.fail(err) {
		return false
	}
	var mids []joinMiddle
	var firsts, lasts []string
	for rows.Next() {
		var m joinMiddle
		var owner string
		var pos int
		if err := rows.Scan(&m.m1, &m.m2, &owner, &pos); js.fail(err) {
			rows.Close()
			return false
		}
		ref := m.m1
		if owner == m.m1 {
			ref = m.m2
		}
		m.e = js.edge(owner, pos, ref)
		mids, firsts, lasts = append(mids, m), append(firsts, m.m1), append(lasts, m.m2)
	}
	rows.Close()
	if js.fail(rows.Err()) || len(mids) == 0 {
		return js.err == nil
	}
	first, ok := js.between(firsts, x)
	if !ok {
		return false
	}
	last, ok := js.between(lasts, js.to)
	// By M1, then the key from X, then M2 and the keys after it.
	for i := 0; ok && i < len(mids); {
		j := i + 1
		for j < len(mids) && mids[j].m1 == mids[i].m1 {
			j++
		}
		for _, e1 := range first[mids[i].m1] {
			for _, m := range mids[i:j] {
				for _, e3 := range last[m.m2] {
					if !js.emitVia(p, []*joinEdge{e1, m.e, e3}, m.m1, m.m2, js.to) {
						return false
					}
				}
			}
		}
		i = j
	}
	return ok
}

// names runs q, a statement listing the first tables still wanted, for
// the ends x and y, without the tables of excl.
func (js *joinSearch) names(q *query, x, y string, excl []string) ([]string, bool) {
	list, err := json.Marshal(excl)
	if js.fail(err) {
		return nil, false
	}
	rows, err := js.tx.query(js.ctx, q, js.rel, js.conn, x, y, js.limit-len(js.paths), string(list))
	if js.fail(err) {
		return nil, false
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); js.fail(err) {
			return nil, false
		}
		out = append(out, n)
	}
	return out, !js.fail(rows.Err())
}

// between returns the keys between each of names and table v, by name,
// each list in walk order from v (by holding table, then position: all
// lead to the same table).
func (js *joinSearch) between(names []string, v string) (map[string][]*joinEdge, bool) {
	a, err := json.Marshal(names)
	if js.fail(err) {
		return nil, false
	}
	b, err := json.Marshal([]string{v})
	if js.fail(err) {
		return nil, false
	}
	rows, err := js.tx.query(js.ctx, qJoinBetween, js.rel, js.conn, string(a), string(b))
	if js.fail(err) {
		return nil, false
	}
	defer rows.Close()
	out := map[string][]*joinEdge{}
	for rows.Next() {
		var name, owner, ref string
		var pos int
		if err := rows.Scan(&name, &owner, &pos, &ref); js.fail(err) {
			return nil, false
		}
		out[name] = append(out[name], js.edge(owner, pos, ref))
	}
	for name, es := range out {
		slices.SortFunc(es, walkOrder(v))
		out[name] = slices.Compact(es) // a name listed twice
	}
	return out, !js.fail(rows.Err())
}
