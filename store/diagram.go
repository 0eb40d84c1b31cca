package store

import (
	"cmp"
	"context"
	"database/sql"
)

// The neighbourhood of a table (schema_diagram, `hubsnap snapshot
// diagram`): the table and every table within a few foreign-key steps of
// it, in either direction, with their key columns and the foreign keys
// between them, as the JSON of mcpserver/diagram.Diagram, composed by one
// statement (qDiagram).

// Bounds of schema_diagram.
const (
	DefaultDiagramHops = 1
	MaxDiagramHops     = 3
	// MaxDiagramTables is the most tables a diagram shows, the centre
	// included.
	MaxDiagramTables = 40
	// DiagramOtherColumns is how many columns that are in no key a table
	// shows, after its key columns.
	DiagramOtherColumns = 8
)

// DiagramRequest asks for the neighbourhood of a table.
type DiagramRequest struct {
	// Table names the centre: a bare name, or "connection.table".
	Table string
	// Connection is the centre's connection; "" for any (then a bare name
	// must be in one connection only).
	Connection string
	// Hops is how many foreign-key steps to follow: DefaultDiagramHops
	// when 0, at most MaxDiagramHops.
	Hops int
	// Release is the id of a cached release of the project to draw; "" for
	// the current release.
	Release string
}

var (
	// qDiagramRelease finds the row id of release ?2 of project ?1.
	qDiagramRelease = readQuery(`SELECT id FROM releases WHERE project = ?1 AND release_id = ?2`)

	// qDiagram composes the answer of schema_diagram for table ?3 of
	// connection ?2 in release ?1, with ?4 hops.
	//
	// walk follows foreign keys both ways from the centre, within its
	// connection and only to tables the release holds; UNION keeps one
	// row per table and distance, so each table is expanded at most once
	// per distance (at most hops + 1 times). near keeps each table's
	// nearest distance; the diagram takes the first 40 by distance, then
	// name. A table shows its primary- and foreign-key columns, then its
	// first 8 other columns, in table order; its list stops before 6 KiB
	// of JSON (always one column), and columnsTotal counts them all when
	// some are left out. Tables are kept, in order, while they fit in
	// 40 KiB of JSON (the centre always), foreign keys between kept tables
	// while they fit in 16 KiB: with names of 1 KiB, the answer stays well
	// under AnswerBudget (a key's size is counted before its nullable and
	// unique are worked out, so that they are worked out only for the keys
	// shown). truncated is set when a table within hops or a foreign key
	// between kept tables is left out.
	//
	// CROSS JOIN keeps the few rows at hand the outer loop: without
	// statistics SQLite would rather scan every table, column or key of
	// the connection and look each up in them.
	//
	// A foreign key's nullable says one of its columns may be NULL; unique
	// says its columns hold all of the primary key's or of a unique
	// index's, so each referencing row is the only one.
	qDiagram = readQuery(`
WITH RECURSIVE
walk(name, d) AS (
	SELECT ?3, 0
	UNION
	SELECT f.ref_table, w.d + 1 FROM walk w
		CROSS JOIN tables t ON t.release = ?1 AND t.connection = ?2 AND t.name = w.name
		CROSS JOIN foreign_keys f ON f.table_id = t.id
		WHERE w.d < ?4 AND f.ref_connection = ?2
			AND EXISTS (SELECT 1 FROM tables r WHERE r.release = ?1 AND r.connection = ?2 AND r.name = f.ref_table)
	UNION
	SELECT f.table_name, w.d + 1 FROM walk w
		CROSS JOIN foreign_keys f ON f.release = ?1 AND f.ref_connection = ?2 AND f.ref_table = w.name AND f.connection = ?2
		WHERE w.d < ?4),
near AS MATERIALIZED (SELECT name, min(d) AS d FROM walk GROUP BY name),
ranked AS MATERIALIZED (
	SELECT t.id, t.name, n.d, row_number() OVER (ORDER BY n.d, t.name) AS k
	FROM near n CROSS JOIN tables t ON t.release = ?1 AND t.connection = ?2 AND t.name = n.name
	ORDER BY n.d, t.name LIMIT 40),
fkcols AS MATERIALIZED (
	SELECT DISTINCT f.table_id, j.value AS name
	FROM ranked r CROSS JOIN foreign_keys f ON f.table_id = r.id, json_each(f.columns) j),
cols AS MATERIALIZED (
	SELECT table_id, position, keyed, item, row_number() OVER (PARTITION BY table_id, keyed ORDER BY position) AS n
	FROM (SELECT c.table_id, c.position, (c.pk_position IS NOT NULL OR fk.name IS NOT NULL) AS keyed,
			concat('{"name":', json_quote(c.name), ',"type":', json_quote(c.type), CASE
				WHEN c.pk_position IS NOT NULL AND fk.name IS NOT NULL THEN ',"key":"PK,FK"'
				WHEN c.pk_position IS NOT NULL THEN ',"key":"PK"'
				WHEN fk.name IS NOT NULL THEN ',"key":"FK"'
				ELSE '' END, '}') AS item
		FROM ranked r CROSS JOIN columns c ON c.table_id = r.id
		LEFT JOIN fkcols fk ON fk.table_id = c.table_id AND fk.name = c.name)),
shown AS MATERIALIZED (
	SELECT table_id, keyed, position, item FROM (
		SELECT table_id, keyed, position, item, sum(octet_length(item) + 1) OVER w AS bytes, row_number() OVER w AS m
		FROM cols WHERE keyed OR n <= 8
		WINDOW w AS (PARTITION BY table_id ORDER BY NOT keyed, position))
	WHERE bytes <= 6144 OR m = 1),
items AS MATERIALIZED (
	SELECT r.k, r.name, concat('{"table":', json_quote(r.name), ',"connection":', json_quote(?2),
		',"distance":', r.d, ',"columns":[', coalesce((
			SELECT group_concat(item, ',' ORDER BY NOT keyed, position) FROM shown s WHERE s.table_id = r.id), ''), ']',
		(SELECT concat(',"columnsTotal":', count(*)) FROM columns c WHERE c.table_id = r.id
			HAVING count(*) > (SELECT count(*) FROM shown s WHERE s.table_id = r.id)),
		'}') AS item
	FROM ranked r),
kept AS MATERIALIZED (
	SELECT k, name, item FROM (
		SELECT k, name, item, sum(octet_length(item) + 1) OVER (ORDER BY k) AS bytes FROM items)
	WHERE bytes <= 40960 OR k = 1),
candidates AS MATERIALIZED (
	SELECT kf.k, f.table_id, f.position, f.columns, f.ref_columns, f.name, f.ref_table, kf.name AS from_name,
		sum(octet_length(f.columns) + octet_length(f.ref_columns) + octet_length(json_quote(kf.name))
			+ octet_length(json_quote(f.ref_table)) + coalesce(octet_length(json_quote(f.name)) + 8, 0) + 80)
			OVER (ORDER BY kf.k, f.position) AS bytes
	FROM kept kf CROSS JOIN ranked rf ON rf.k = kf.k
	CROSS JOIN foreign_keys f ON f.table_id = rf.id
	WHERE f.ref_connection = ?2 AND f.ref_table IN (SELECT name FROM kept)),
edges AS MATERIALIZED (
	SELECT f.k, f.position, concat('{"from":', json_quote(f.from_name), ',"fromColumns":', f.columns,
		',"to":', json_quote(f.ref_table), ',"toColumns":', f.ref_columns,
		iif(f.name IS NULL, '', concat(',"name":', json_quote(f.name))),
		',"nullable":', iif(EXISTS (
			SELECT 1 FROM json_each(f.columns) j JOIN columns c ON c.table_id = f.table_id AND c.name = j.value
			WHERE c.nullable), 'true', 'false'),
		',"unique":', iif(
			EXISTS (SELECT 1 FROM columns c WHERE c.table_id = f.table_id AND c.pk_position IS NOT NULL)
				AND NOT EXISTS (SELECT 1 FROM columns c WHERE c.table_id = f.table_id AND c.pk_position IS NOT NULL
					AND c.name NOT IN (SELECT value FROM json_each(f.columns)))
			OR EXISTS (SELECT 1 FROM indexes x WHERE x.table_id = f.table_id AND x.is_unique
				AND json_array_length(x.columns) <= json_array_length(f.columns)
				AND NOT EXISTS (SELECT 1 FROM json_each(x.columns) xc
					WHERE xc.value NOT IN (SELECT value FROM json_each(f.columns)))), 'true', 'false'),
		'}') AS item
	FROM candidates f WHERE f.bytes <= 16384)
SELECT CAST(concat('{"center":', json_quote(?3), ',"hops":', ?4,
	',"tables":[', (SELECT group_concat(item, ',' ORDER BY k) FROM kept), ']',
	',"edges":[', coalesce((SELECT group_concat(item, ',' ORDER BY k, position) FROM edges), ''), ']',
	',"truncated":', iif((SELECT count(*) FROM kept) < (SELECT count(*) FROM near)
		OR EXISTS (SELECT 1 FROM candidates WHERE bytes > 16384), 'true', 'false'),
	',"tablesTotal":', (SELECT count(*) FROM near), '}') AS BLOB) AS answer`)
)

// DiagramJSON answers schema_diagram: the neighbourhood of a table of t's
// current release (or of the cached release req.Release), as the JSON of
// mcpserver/diagram.Diagram. An unknown table is NotFound, a bare name in
// several connections Ambiguous, hops outside 1..MaxDiagramHops
// InvalidArgument, no current release NoRelease.
func (s *Store) DiagramJSON(ctx context.Context, t Target, req DiagramRequest) ([]byte, error) {
	hops := cmp.Or(req.Hops, DefaultDiagramHops)
	if hops < 1 || hops > MaxDiagramHops {
		return nil, Errorf(InvalidArgument, "hops must be between 1 and %d, got %d", MaxDiagramHops, req.Hops)
	}
	var out []byte
	err := s.view(ctx, func(tx readTx) error {
		rel, err := diagramRelease(ctx, tx, t, req.Release)
		if err != nil {
			return err
		}
		centre, err := diagramCentre(ctx, tx, rel, req.Connection, req.Table)
		if err != nil {
			return err
		}
		return tx.row(ctx, qDiagram, rel, centre.Connection, centre.Name, hops).Scan(&out)
	})
	return out, err
}

// diagramRelease returns the row id of the release a diagram is drawn
// from: t's current one, or release id of t's project.
func diagramRelease(ctx context.Context, tx readTx, t Target, id string) (int64, error) {
	if id == "" {
		return currentID(ctx, tx, t)
	}
	var rel int64
	err := tx.row(ctx, qDiagramRelease, t.Project, id).Scan(&rel)
	if err == sql.ErrNoRows {
		return 0, Errorf(NotFound, "release %q of project %q is not in the cache; fetch it with `hubsnap snapshot sync --release %s`",
			id, t.Project, id)
	}
	return rel, err
}

// diagramCentre finds the table a diagram is centred on, as
// schema_get_table finds it: name in connection, or a bare name in one
// connection, or "connection.table".
func diagramCentre(ctx context.Context, tx readTx, rel int64, connection, name string) (TableRef, error) {
	exists := func(conn, n string) (bool, error) {
		var found bool
		err := tx.row(ctx, qJoinTableExists, rel, conn, n).Scan(&found)
		return found, err
	}
	if connection != "" {
		found, err := exists(connection, name)
		if err == nil && !found {
			err = Errorf(NotFound, "table %q not found in connection %q", name, connection)
		}
		return TableRef{Connection: connection, Name: name}, err
	}
	ref, err := resolveTable(ctx, tx, rel, "table", name)
	switch ErrorCode(err) {
	case NotFound:
		return ref, Errorf(NotFound, "table %q not found", name)
	case Ambiguous:
		conns, _ := tableConnections(ctx, tx, rel, name)
		qualified := make([]string, len(conns))
		for i, c := range conns {
			qualified[i] = c + "." + name
		}
		return ref, Errorf(Ambiguous, "table %q is in several connections: %s; ask for one of them",
			name, nameList(qualified, len(qualified)))
	}
	return ref, err
}

// tableConnections lists the connections that hold a table named name in
// release rel (the first 50).
func tableConnections(ctx context.Context, tx readTx, rel int64, name string) ([]string, error) {
	rows, err := tx.query(ctx, qJoinTableConnections, rel, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var conns []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		conns = append(conns, c)
	}
	return conns, rows.Err()
}
