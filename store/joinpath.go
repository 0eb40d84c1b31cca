package store

import (
	"cmp"
	"context"
	"strings"
)

// Join paths (schema_join_path): how to join two tables of the current
// release through foreign keys.
//
// Every foreign key between two tables of the release, both in one
// connection, is an edge walkable both ways; two keys between the same
// tables are two edges. A key to a table the release does not hold, one
// into another connection and one of a table to itself are no edges: no
// simple path between two tables can use them.
//
// Meeting in the middle. The paths of 1, 2 and 3 joins come from SQL
// alone (joinmeet.go): for each length one statement finds what lies in
// the middle, whatever the tables' fan-out, and the keys to the ends are
// then read by primary key. 1 join: the keys between the two tables, by primary
// key. 2 joins: through the tables joined to both ends, N(from) ∩ N(to),
// where the tables pointing at a table are one range of foreign_keys'
// primary key, in name order: those pointing at both ends are a merge of
// two ranges (or, when one end has few, a lookup of each of them in the
// other's range), and the few tables an end points at are looked up in
// the other's neighbours. 3 joins: through a key between a table of
// N(from) and one of N(to), which one of the two holds: the own keys of
// each side's tables that point into the other side, one lookup per
// neighbour. Each statement stops at the first tables (or keys) in the
// answer's order, as many as paths are still wanted. So between two hubs
// that 10,000 tables each point at, the 2-join paths through the tables
// that point at both, sorted after all the others, come from one merge
// (issue 36 found "[]", truncated, both ways).
//
// Longer paths. A breadth-first search runs from both ends at once,
// driven by SQL reads: each step reads the foreign keys of a whole level
// of one side (the side with fewer tables on its frontier) in one
// statement, so a search costs a handful of statements, and a table
// referenced by hundreds of others is read once. After r steps from
// "from" and s from "to", every table within r joins of "from" and within
// s of "to" is known with its distance to each end, and the edges read
// are exactly those every path of up to r+s joins uses. Paths of n joins
// are then listed by a depth-first walk from "from" that leaves out every
// table farther from "to" than the joins left (its distance to "to" is
// known, or more than s): a walk only enters tables that lie on some path
// of n joins, so it does little more work than the paths it lists.
// Lengths are tried from 4 joins up, widening the search only when a
// longer path is needed, until limit paths are found or maxHops is
// reached.
//
// Hubs on longer paths. A level is read only while it fits in the
// budget: the level of a table that 10,000 others point at does not. Then
// the walk reads what it needs for itself. At a table more than a page of
// keys point at, with 2 or 3 joins left, it ends the path with a meeting
// in the middle, as above, leaving out the tables the path holds
// (joinclose.go). Elsewhere (joinadj.go, joinprobe.go) it reads a table's
// edges a page at a time in walk order, so that a walk that finds its
// paths among the first tables pointing at a hub stops there; and the
// edges between a table and the few tables on side 1's frontier by
// primary key, a batch of tables at a time.
//
// A recursive CTE was the other way: one statement, but it grows every
// partial path from one end, unpruned, so that two hubs four joins apart
// mean millions of rows before the first answer; and a CTE cannot prefer
// the cheaper side. Here SQL does the reading, by index ranges, and Go the
// bookkeeping a search needs.
//
// The work is bounded, not just the answer. The meeting of 2 joins
// between "from" and "to" is one statement, a merge of two ranges at
// most. The meetings of 3 joins, and a walk's, look up at most
// joinLookupBudget referring keys together (counted before each meeting,
// by a count that stops at what is left). A walk reads at most
// joinEdgeBudget distinct foreign keys, the pairs of tables its probes ask
// about and closeCost for each of its meetings included (plus, once a
// side, a level it found too big to take), and extends at most
// joinStepBudget partial paths.
//
// Truncated. The answer always holds the first paths of the order (below)
// of at most maxHops joins: none is missing before the last one given.
// Truncated says that more may exist after them that belong in the
// answer: the search stopped at one of its bounds, or the next path did
// not fit in the answer's bytes, before it had limit paths or had ruled
// out every other path of up to maxHops joins. A search that lists limit
// paths, or every path of up to maxHops joins, is whole, however big the
// tables it passed by. The work bounds never cut paths of 1 and 2 joins,
// and those of 3 joins only when the two tables have more than
// joinLookupBudget referring keys together: unless the answer's bytes ran
// out, a cut answer holds every path of up to 2 joins, and of up to 3
// unless those keys are more, up to limit.
//
// Order: by number of joins, then hop by hop from "from": the name of the
// next table, then the foreign key taken to it (the name of the table that
// holds the key, then the key's position in that table). So parallel keys
// keep the order of their table's foreign keys.

// Bounds of schema_join_path.
const (
	DefaultJoinHops  = 4
	MaxJoinHops      = 6
	DefaultJoinPaths = 3
	MaxJoinPaths     = 10

	joinEdgeBudget  = 5_000   // distinct foreign keys a walk reads at most, and pairs it probes
	joinStepBudget  = 100_000 // partial paths a search extends at most
	joinAnswerBytes = 60_000  // paths are added while the answer stays below this
	unreachable     = 1 << 30 // a distance no path has
)

// JoinPathRequest asks for the join paths between two tables.
type JoinPathRequest struct {
	// From and To name tables: a bare name, or "connection.table".
	From, To string
	// MaxHops is the most joins in a path: DefaultJoinHops when 0, at most
	// MaxJoinHops.
	MaxHops int
	// Limit is the most paths: DefaultJoinPaths when 0, at most
	// MaxJoinPaths.
	Limit int
}

// JoinPaths is the answer of schema_join_path.
type JoinPaths struct {
	Paths []JoinPath
	// Truncated is set when the search stopped at one of its bounds, or a
	// path did not fit in the answer, before it had Limit paths or had
	// ruled out every other path of up to MaxHops joins: a path that
	// belongs after the last one given (more joins, or as many and later
	// in order) may exist. None is missing before it. The work bounds
	// never cut paths of 1 and 2 joins.
	Truncated bool
}

// JoinPath is one way to join two tables.
type JoinPath struct {
	Tables []string // from "from" to "to"
	Joins  []string // one condition per join, e.g. posts.author_id = users.id
	SQL    string   // FROM ... JOIN ... ON ...
}

var (
	// qJoinTableConnections lists the connections holding a table named ?2
	// in release ?1.
	qJoinTableConnections = readQuery(`
SELECT connection FROM tables WHERE release = ?1 AND name = ?2 ORDER BY connection LIMIT 50`)

	// qJoinTableExists tells whether release ?1 holds table ?3 in connection ?2.
	qJoinTableExists = readQuery(`
SELECT EXISTS (SELECT 1 FROM tables WHERE release = ?1 AND connection = ?2 AND name = ?3) AS found`)

	// qJoinEdges reads the edges of the tables named in the JSON array ?3,
	// in connection ?2 of release ?1: their own foreign keys into tables
	// of the release, and the keys of other tables pointing at them, both
	// within the connection and never of a table to itself; each key once
	// (a key between two tables of the list comes as its holder's). At
	// most ?4;
	// the count says whether there were more. One value holds them all:
	// keys separated by char(30), each the holding table, the key's
	// position and the table it points at, separated by char(31). Names
	// hold no control characters (the decoder refuses them), so the
	// separators are safe.
	// CROSS JOIN keeps the list the outer loop: without statistics SQLite
	// would rather scan every table of the connection and the list for
	// each.
	qJoinEdges = readQuery(`
SELECT count(*), coalesce(group_concat(e, char(30)), '') FROM (
	SELECT f.table_name || char(31) || f.position || char(31) || f.ref_table AS e
	FROM json_each(?3) j
	CROSS JOIN tables t ON t.release = ?1 AND t.connection = ?2 AND t.name = j.value
	JOIN foreign_keys f ON f.table_id = t.id
	WHERE f.ref_connection = ?2 AND f.ref_table <> f.table_name
		AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = f.ref_table)
	UNION ALL
	SELECT f.table_name || char(31) || f.position || char(31) || f.ref_table
	FROM json_each(?3) j
	CROSS JOIN foreign_keys f ON f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = j.value AND f.connection = ?2
	WHERE f.table_name <> f.ref_table AND f.table_name NOT IN (SELECT value FROM json_each(?3))
	LIMIT ?4)`)

	// qJoinKeyColumns reads the columns and referenced columns (JSON
	// arrays) of the foreign keys of a path: ?3 is a JSON array of
	// [holding table, position] pairs in connection ?2 of release ?1.
	qJoinKeyColumns = readQuery(`
SELECT t.name, f.position, f.columns, f.ref_columns
FROM json_each(?3) j
CROSS JOIN tables t ON t.release = ?1 AND t.connection = ?2 AND t.name = j.value ->> 0
JOIN foreign_keys f ON f.table_id = t.id AND f.position = j.value ->> 1`)
)

// JoinPaths answers schema_join_path for t's current release: the
// shortest foreign-key paths between two tables. An unknown table is
// NotFound, a bare name in several connections Ambiguous. Tables of
// different connections have no paths.
func (s *Store) JoinPaths(ctx context.Context, t Target, req JoinPathRequest) (JoinPaths, error) {
	var out JoinPaths
	maxHops, limit := cmp.Or(req.MaxHops, DefaultJoinHops), cmp.Or(req.Limit, DefaultJoinPaths)
	if maxHops < 1 || maxHops > MaxJoinHops {
		return out, Errorf(InvalidArgument, "maxHops must be between 1 and %d, got %d", MaxJoinHops, req.MaxHops)
	}
	if limit < 1 || limit > MaxJoinPaths {
		return out, Errorf(InvalidArgument, "limit must be between 1 and %d, got %d", MaxJoinPaths, req.Limit)
	}
	err := s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		from, err := resolveTable(ctx, tx, rel, "from", req.From)
		if err != nil {
			return err
		}
		to, err := resolveTable(ctx, tx, rel, "to", req.To)
		if err != nil {
			return err
		}
		out.Paths = []JoinPath{}
		switch {
		case from == to:
			out.Paths = append(out.Paths, JoinPath{Tables: []string{from.Name}, Joins: []string{}, SQL: "FROM " + sqlName(from.Name)})
			return nil
		case from.Connection != to.Connection:
			return nil
		}
		js := newJoinSearch(ctx, tx, rel, from, to, limit)
		if err := js.run(maxHops); err != nil {
			return err
		}
		out.Paths, out.Truncated = js.paths, js.truncated
		return nil
	})
	return out, err
}

// resolveTable finds the table a schema_join_path argument names: a bare
// name in one connection, or "connection.table".
func resolveTable(ctx context.Context, tx readTx, rel int64, arg, name string) (TableRef, error) {
	rows, err := tx.query(ctx, qJoinTableConnections, rel, name)
	if err != nil {
		return TableRef{}, err
	}
	var conns []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return TableRef{}, err
		}
		conns = append(conns, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return TableRef{}, err
	}
	switch len(conns) {
	case 1:
		return TableRef{Connection: conns[0], Name: name}, nil
	case 0:
		if conn, n, ok := strings.Cut(name, "."); ok && conn != "" && n != "" {
			var found bool
			if err := tx.row(ctx, qJoinTableExists, rel, conn, n).Scan(&found); err != nil {
				return TableRef{}, err
			}
			if found {
				return TableRef{Connection: conn, Name: n}, nil
			}
		}
		return TableRef{}, Errorf(NotFound, "%s: table %q not found", arg, name)
	}
	qualified := make([]string, len(conns))
	for i, c := range conns {
		qualified[i] = c + "." + name
	}
	return TableRef{}, Errorf(Ambiguous, "%s: table %q is in several connections: %s; ask for one of them as connection.table",
		arg, name, nameList(qualified, len(qualified)))
}
