package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The SQL of tables and their columns, foreign keys and indexes: how a
// release writes them, and the answers that read them.

const (
	insertTable = `INSERT INTO tables (id, release, connection, name, comment, position, digest)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
	// insertColumn and insertIndex write a row with its part of the
	// schema_get_table answer (columnJSON, indexJSON). The VALUES tuple is
	// what a batch repeats for more rows.
	insertColumn = `INSERT INTO columns (table_id, position, name, type, nullable, comment, default_value, enum_values,
		pk_position, json)
	SELECT table_id, position, name, type, nullable, comment, default_value, enum_values, pk_position, ` + columnJSON + `
	FROM (SELECT column1 AS table_id, column2 AS position, column3 AS name, column4 AS type, column5 AS nullable,
			column6 AS comment, column7 AS default_value, column8 AS enum_values, column9 AS pk_position
		FROM (VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)))`
	insertIndex = `INSERT INTO indexes (table_id, position, name, columns, is_unique, json)
	SELECT table_id, position, name, columns, is_unique, ` + indexJSON + `
	FROM (SELECT column1 AS table_id, column2 AS position, column3 AS name, column4 AS columns, column5 AS is_unique
		FROM (VALUES (?, ?, ?, ?, ?)))`
)

// The pages of schema_list_tables: the JSON array of the tables after the
// key (?2, ?3), sorted by connection and name, at most ?4 of them and no
// more than fit in ?6 bytes (but always one); whether more follow; and the
// key of the last one given. One statement reads ?4 + 1 rows of an index
// range; qTablesOfConnectionPage is the same within connection ?5 (one
// statement per shape, so each keeps its index).
var (
	qTablesPage = readQuery(`
WITH page AS MATERIALIZED (
	SELECT connection, name, item, n, n <= ?4 AND (bytes <= ?6 OR n = 1) AS kept FROM (
		SELECT connection, name, item, row_number() OVER w AS n, sum(octet_length(item) + 1) OVER w AS bytes
		FROM (SELECT connection, name, '{"name":' || json_quote(name) || ',"connection":' || json_quote(connection) || '}' AS item
			FROM tables WHERE release = ?1 AND (connection, name) > (?2, ?3) ORDER BY connection, name LIMIT ?4 + 1)
		WINDOW w AS (ORDER BY connection, name)))
SELECT '[' || coalesce((SELECT group_concat(item, ',' ORDER BY n) FROM page WHERE kept), '') || ']' AS tables,
	EXISTS (SELECT 1 FROM page WHERE NOT kept) AS more,
	(SELECT connection FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last_connection,
	(SELECT name FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last_name`)
	qTablesOfConnectionPage = readQuery(`
WITH page AS MATERIALIZED (
	SELECT connection, name, item, n, n <= ?4 AND (bytes <= ?6 OR n = 1) AS kept FROM (
		SELECT connection, name, item, row_number() OVER w AS n, sum(octet_length(item) + 1) OVER w AS bytes
		FROM (SELECT connection, name, '{"name":' || json_quote(name) || ',"connection":' || json_quote(connection) || '}' AS item
			FROM tables WHERE release = ?1 AND connection = ?5 AND name > ?3 ORDER BY name LIMIT ?4 + 1)
		WINDOW w AS (ORDER BY name)))
SELECT '[' || coalesce((SELECT group_concat(item, ',' ORDER BY n) FROM page WHERE kept), '') || ']' AS tables,
	EXISTS (SELECT 1 FROM page WHERE NOT kept) AS more,
	(SELECT connection FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last_connection,
	(SELECT name FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last_name`)
	qConnectionTables = readQuery(`SELECT count(*) FROM tables WHERE release = ? AND connection = ?`)
	qConnectionExists = readQuery(`SELECT EXISTS (SELECT 1 FROM connections WHERE release = ? AND name = ?) AS found`)
)

// TablesPage returns a page of schema_list_tables for t's current
// release: the JSON of mcpserver.ListTablesOutput. With connection "",
// every table; else those of that connection (NotFound when the release
// has no such connection).
func (s *Store) TablesPage(ctx context.Context, t Target, connection string, p PageRequest) ([]byte, error) {
	ctx = bounded(ctx)
	limit, err := p.limit()
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.view(ctx, func(tx readTx) error {
		ri, rel, err := current(ctx, tx, t)
		if err != nil {
			return err
		}
		// The cursor's key is the connection it lists ("" for all) and the
		// last table given: a cursor of one connection's list pages no
		// other list.
		after, err := decodeCursor(p.Cursor, "tables", ri, 3)
		if err != nil {
			return err
		}
		total := int64(ri.Tables)
		q, args := qTablesPage, []any{rel, after[1], after[2], limit, nil, pageBudget(limit)}
		if connection != "" {
			q, args[4] = qTablesOfConnectionPage, connection
			if err := tx.row(ctx, qConnectionTables, rel, connection).Scan(&total); err != nil {
				return err
			}
			if total == 0 {
				// No tables: an unknown connection, or a known one left empty.
				var known bool
				if err := tx.row(ctx, qConnectionExists, rel, connection).Scan(&known); err != nil {
					return err
				}
				if !known {
					return Errorf(NotFound, "connection %q not found", connection)
				}
			}
		}
		if p.Cursor != "" && after[0] != connection {
			return Errorf(InvalidArgument, "this cursor pages the tables of connection %q, not %q: list again without a cursor",
				after[0], connection)
		}
		var items []byte
		var more bool
		var lastConn, lastName sql.NullString
		if err := tx.row(ctx, q, args...).Scan(&items, &more, &lastConn, &lastName); err != nil {
			return err
		}
		next := ""
		if more {
			next = cursor{list: "tables", release: releaseTag(ri), key: []string{connection, lastConn.String, lastName.String}}.encode()
		}
		out = pageJSON("tables", items, total, next)
		return nil
	})
	return out, err
}

// Completions of resource template arguments: at most completions + 1
// names starting with a prefix (?3 <= name < ?4), sorted.
var (
	qCompleteConnections = readQuery(`
SELECT n.name FROM current_releases cr JOIN connections n ON n.release = cr.release
WHERE cr.project = ?1 AND cr.environment = ?2 AND n.name >= ?3 AND n.name < ?4
ORDER BY n.name LIMIT ?5`)
	qCompleteTables = readQuery(`
SELECT DISTINCT t.name FROM current_releases cr JOIN tables t ON t.release = cr.release
WHERE cr.project = ?1 AND cr.environment = ?2 AND t.name >= ?3 AND t.name < ?4
ORDER BY t.name LIMIT ?5`)
	qCompleteTablesOfConnection = readQuery(`
SELECT t.name FROM current_releases cr JOIN tables t ON t.release = cr.release
WHERE cr.project = ?1 AND cr.environment = ?2 AND t.connection = ?6 AND t.name >= ?3 AND t.name < ?4
ORDER BY t.name LIMIT ?5`)
)

// MaxCompletions is how many names a completion offers at most.
const MaxCompletions = 100

// CompleteConnections returns the connections of t's current release that
// start with prefix, sorted, at most MaxCompletions, and whether there are
// more. No current release offers nothing.
func (s *Store) CompleteConnections(ctx context.Context, t Target, prefix string) ([]string, bool, error) {
	return s.complete(ctx, qCompleteConnections, t, prefix)
}

// CompleteTables is CompleteConnections for the table names of connection
// (of every connection when it is "").
func (s *Store) CompleteTables(ctx context.Context, t Target, connection, prefix string) ([]string, bool, error) {
	if connection != "" {
		return s.complete(ctx, qCompleteTablesOfConnection, t, prefix, connection)
	}
	return s.complete(ctx, qCompleteTables, t, prefix)
}

// complete runs a completion query.
func (s *Store) complete(ctx context.Context, q *query, t Target, prefix string, more ...any) ([]string, bool, error) {
	ctx = bounded(ctx)
	// No byte of UTF-8 is 0xff: every name starting with prefix sorts
	// below prefix + "\xff".
	args := append([]any{t.Project, t.Environment, prefix, prefix + "\xff", MaxCompletions + 1}, more...)
	names, err := s.strings(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	cut := len(names) > MaxCompletions
	if cut {
		names = names[:MaxCompletions]
	}
	// Names are up to 1 KiB long: as many as fit in the answer's budget.
	bytes := 0
	for i, n := range names {
		quoted, _ := json.Marshal(n)
		if bytes += len(quoted) + 1; bytes > AnswerBudget-4<<10 {
			return names[:i], true, nil
		}
	}
	return names, cut, nil
}

// writeTable inserts table t of a release, with id, through the writer's
// batches.
func (w *ReleaseWriter) writeTable(ctx context.Context, id int64, pos int, t *snapshot.Table) error {
	if err := w.tables.add(ctx, id, w.release, t.Connection, t.Name, nullString(t.Comment), pos, tableDigest(t)); err != nil {
		return err
	}
	pk := make(map[string]int, len(t.PrimaryKey))
	for i, c := range t.PrimaryKey {
		pk[c] = i + 1
	}
	for i, c := range t.Columns {
		var pkPos any
		if n, ok := pk[c.Name]; ok {
			pkPos = n
		}
		var enum any
		if len(c.Enum) > 0 {
			enum = jsonList(c.Enum)
		}
		if err := w.columns.add(ctx, id, i, c.Name, c.Type, c.Nullable, nullString(c.Comment),
			nullString(c.Default), enum, pkPos); err != nil {
			return err
		}
	}
	for i, fk := range t.ForeignKeys {
		if fk.RefConnection == "" {
			fk.RefConnection = t.Connection // as the snapshot format defaults it
		}
		if err := w.addKey(fk.RefConnection, fk.RefTable, t.Connection, t.Name, i, id, fk.Name,
			jsonList(fk.Columns), jsonList(fk.RefColumns), fk.OnDelete); err != nil {
			return err
		}
	}
	for i, ix := range t.Indexes {
		if err := w.indexes.add(ctx, id, i, nullString(ix.Name), jsonList(ix.Columns), ix.Unique); err != nil {
			return err
		}
	}
	return nil
}

// nullString is s, or NULL when it is empty: how the index stores a value
// the snapshot leaves out.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonList encodes a list of names as a JSON array, "[]" when empty.
func jsonList(names []string) string {
	if len(names) == 0 {
		return "[]"
	}
	b, err := json.Marshal(names)
	if err != nil { // []string always marshals
		panic(err)
	}
	return string(b)
}
