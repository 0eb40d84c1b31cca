package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// The answer of schema_get_table: the whole table in one statement, or,
// for a table whose answer would pass AnswerBudget, the cut answer.

// The parts of a table's answer, each as schema_get_table shows it: SQL
// expressions over one row of columns, foreign_keys or indexes, written
// here once. The INSERTs of those rows (table.go, foreign_key.go) store
// them in the rows' json and ref_json columns, and the statements that
// compose answers (qTableJSON and qTableCut below, qDiffTableDocs) read
// them as they are: composing the parts at every call would cost more than
// the rest of the answer (docs/index.md, "Answers and plain data").
// Optional members are left out rather than null: a NULL argument of
// concat() adds nothing, where json_quote(NULL) would add null.
const (
	// columnJSON is a column as answer.Column.
	columnJSON = `concat('{"name":', json_quote(name), ',"type":', json_quote(type),
		',"nullable":', iif(nullable, 'true', 'false'),
		iif(comment IS NULL, NULL, concat(',"comment":', json_quote(comment))),
		iif(default_value IS NULL, NULL, concat(',"default":', json_quote(default_value))),
		iif(enum_values IS NULL, NULL, concat(',"enum":', enum_values)), '}')`
	// foreignKeyJSON is a foreign key as answer.ForeignKey, among its own
	// table's foreignKeys.
	foreignKeyJSON = `concat('{', iif(name IS NULL, NULL, concat('"name":', json_quote(name), ',')),
		iif(json_array_length(columns) = 1, concat('"column":', columns -> 0, ','), NULL),
		'"columns":', columns, ',"references":{"table":', json_quote(ref_table),
		iif(ref_connection = connection, NULL, concat(',"connection":', json_quote(ref_connection))),
		iif(json_array_length(ref_columns) = 1, concat(',"column":', ref_columns -> 0), NULL),
		',"columns":', ref_columns, '}',
		iif(on_delete IS NULL, NULL, concat(',"onDelete":', json_quote(on_delete))), '}')`
	// referenceJSON is a foreign key as answer.Reference, among the
	// referenced table's referencedBy.
	referenceJSON = `concat('{"table":', json_quote(table_name),
		iif(connection = ref_connection, NULL, concat(',"connection":', json_quote(connection))),
		iif(name IS NULL, NULL, concat(',"name":', json_quote(name))),
		',"columns":', columns, ',"referencedColumns":', ref_columns, '}')`
	// indexJSON is an index as answer.Index.
	indexJSON = `concat('{', iif(name IS NULL, NULL, concat('"name":', json_quote(name), ',')),
		'"columns":', columns, ',"unique":', iif(is_unique, 'true', 'false'), '}')`
)

// qTableJSON finds the tables named ?3 (in connection ?4, or in any when
// ?4 is NULL) of the current release of project ?1 and environment ?2,
// and composes the schema_get_table answer of each: the JSON of
// answer.Table, written whole by SQLite. A caller needs two rows at
// most: a second means the bare name is ambiguous. No row means no current
// release; a row without a table, no such table.
//
// The JSON is one concat() of json_quote()d values rather than
// json_object(), so that optional members are left out rather than null;
// concat() sizes the answer once, where a chain of || would copy it at
// every step. A NULL piece (a subquery that found nothing) adds nothing.
// Child rows are read in order from their (parent, position) keys.
// referencedBy lists at most 100 foreign keys of other tables, with
// referencedByTotal when there are more; they are counted only when 100
// were listed, so most tables pay for one range read, not two. usedBy
// lists the logics that touch the table (usedByMember).
// The primary key is read through the partial index columns_pk: its first
// column and whether it has a second (pk_position counts from 1 without
// gaps: a snapshot's key names distinct columns of its table), and its
// columns in order only when it has.
// The answer is cast to a BLOB: SQLite returns a BLOB as it is, where it
// would first copy a long TEXT to end it with a NUL byte, and the driver
// hands a BLOB over as []byte, where it would copy a TEXT into a string.
var qTableJSON = readQuery(`
SELECT t.connection, t.name, iif(t.id IS NULL, NULL, CAST(concat(
	'{"name":', json_quote(t.name), ',"connection":', json_quote(t.connection),
	iif(t.comment IS NULL, '', concat(',"comment":', json_quote(t.comment))),
	',"primaryKey":', coalesce((
		SELECT iif(k2.name IS NULL,
			concat('{"name":', json_quote(k.name), ',"type":', json_quote(k.type),
				',"columns":[{"name":', json_quote(k.name), ',"type":', json_quote(k.type), '}]}'),
			concat('{"columns":[', (
				SELECT group_concat(concat('{"name":', json_quote(name), ',"type":', json_quote(type), '}'), ',')
				FROM (SELECT name, type FROM columns WHERE table_id = t.id AND pk_position IS NOT NULL ORDER BY pk_position)), ']}'))
		FROM columns k LEFT JOIN columns k2 ON k2.table_id = k.table_id AND k2.pk_position = 2
		WHERE k.table_id = t.id AND k.pk_position = 1), 'null'),
	',"columns":[', (SELECT group_concat(json, ',') FROM (SELECT json FROM columns WHERE table_id = t.id ORDER BY position)), ']',
	',"foreignKeys":[', (SELECT group_concat(json, ',') FROM (SELECT json FROM foreign_keys WHERE table_id = t.id ORDER BY position)), ']',
	(SELECT concat(',"indexes":[', group_concat(json, ','), ']')
		FROM (SELECT json FROM indexes WHERE table_id = t.id ORDER BY position)
		HAVING count(*) > 0),
	(SELECT concat(',"referencedBy":[', group_concat(ref_json, ','), ']',
			iif(count(*) < 100, '', (
				SELECT concat(',"referencedByTotal":', count(*))
				FROM foreign_keys
				WHERE release = t.release AND ref_connection = t.connection AND ref_table = t.name
				HAVING count(*) > 100)))
		FROM (SELECT ref_json FROM foreign_keys
			WHERE release = t.release AND ref_connection = t.connection AND ref_table = t.name
			ORDER BY connection, table_name, position LIMIT 100)
		HAVING count(*) > 0),
	` + usedByMember(0) + `,
	'}') AS BLOB)) AS answer
FROM current_releases cr
LEFT JOIN tables t ON t.release = cr.release AND t.name = ?3 AND (?4 IS NULL OR t.connection = ?4)
WHERE cr.project = ?1 AND cr.environment = ?2
ORDER BY t.connection
LIMIT 2`)

// qTableNames lists the qualified names of the tables named ?3 in the
// current release of project ?1 and environment ?2, for the message of an
// ambiguous bare name: the first 50, each with the count of all.
var qTableNames = readQuery(`
SELECT t.connection || '.' || t.name, count(*) OVER ()
FROM current_releases cr JOIN tables t ON t.release = cr.release
WHERE cr.project = ?1 AND cr.environment = ?2 AND t.name = ?3
ORDER BY t.connection LIMIT 50`)

// qTableCut composes the cut answer for table ?4 of connection ?3 of the
// current release of project ?1 and environment ?2, when the whole one
// would pass AnswerBudget: each list holds what fits in its share of the
// budget, in order, and says how many it has in all when it holds fewer:
// the primary key's columns 2 KiB (primaryKey.columnsTotal), foreign keys
// 8 KiB (foreignKeysTotal), indexes 4 KiB (indexesTotal), referencedBy
// 6 KiB and 100 entries (referencedByTotal), usedBy 4 KiB and 100
// entries (usedByTotal), the table's comment 2 KiB,
// and columns from position ?5 on, 28 KiB, but always one (columnsTotal;
// the caller adds nextCursor when more follow). A column whose own JSON
// passes 2 KiB shows its comment and default cut to 1 KiB each and as many
// of its first 20 enum values as fit in 1 KiB, with "truncated": true.
// Sizes are of the JSON text (json_quote_cut), so with names of 1 KiB
// that JSON writes in up to 2 KiB the answer stays under 62 KiB. It
// returns the answer, the position of the last column given, and whether
// more columns follow.
var qTableCut = readQuery(`
WITH t AS MATERIALIZED (
	SELECT t.* FROM current_releases cr JOIN tables t ON t.release = cr.release
	WHERE cr.project = ?1 AND cr.environment = ?2 AND t.connection = ?3 AND t.name = ?4),
cols AS MATERIALIZED (
	SELECT position, item, sum(octet_length(item) + 1) OVER (ORDER BY position) AS bytes FROM (
		SELECT c.position, iif(octet_length(c.json) <= 2048, c.json,
			'{"name":' || json_quote(c.name) || ',"type":' || json_quote(c.type)
			|| ',"nullable":' || iif(c.nullable, 'true', 'false')
			|| iif(c.comment IS NULL, '', ',"comment":' || json_quote_cut(c.comment, 1024))
			|| iif(c.default_value IS NULL, '', ',"default":' || json_quote_cut(c.default_value, 1024))
			|| iif(c.enum_values IS NULL, '', ',"enum":[' || coalesce((SELECT group_concat(v, ',' ORDER BY key) FROM (
				SELECT key, v, sum(octet_length(v) + 1) OVER (ORDER BY key) AS bytes
				FROM (SELECT key, json_quote(value) AS v FROM json_each(c.enum_values) LIMIT 20))
				WHERE bytes <= 1024), '') || ']')
			|| ',"truncated":true}') AS item
		FROM columns c, t WHERE c.table_id = t.id AND c.position >= ?5 ORDER BY c.position)),
kept AS (SELECT position, item FROM cols WHERE bytes <= 28672 OR position = (SELECT min(position) FROM cols)),
pk AS MATERIALIZED (
	SELECT name, type, item, sum(octet_length(item) + 1) OVER (ORDER BY pk_position) AS bytes FROM (
		SELECT c.name, c.type, c.pk_position, '{"name":' || json_quote(c.name) || ',"type":' || json_quote(c.type) || '}' AS item
		FROM columns c, t WHERE c.table_id = t.id AND c.pk_position IS NOT NULL)),
fks AS MATERIALIZED (
	SELECT f.json, sum(octet_length(f.json) + 1) OVER (ORDER BY f.position) AS bytes
	FROM foreign_keys f, t WHERE f.table_id = t.id),
ixs AS MATERIALIZED (
	SELECT x.json, sum(octet_length(x.json) + 1) OVER (ORDER BY x.position) AS bytes
	FROM indexes x, t WHERE x.table_id = t.id),
refs AS MATERIALIZED (
	SELECT ref_json, row_number() OVER w AS n, sum(octet_length(ref_json) + 1) OVER w AS bytes
	FROM foreign_keys f, t
	WHERE f.release = t.release AND f.ref_connection = t.connection AND f.ref_table = t.name
	WINDOW w AS (ORDER BY f.connection, f.table_name, f.position))
SELECT '{"name":' || json_quote(t.name) || ',"connection":' || json_quote(t.connection)
	|| iif(t.comment IS NULL, '', ',"comment":' || json_quote_cut(t.comment, 2048))
	|| ',"primaryKey":' || coalesce((
		SELECT iif(count(*) = 1, '{"name":' || json_quote(max(name)) || ',"type":' || json_quote(max(type)) || ',', '{')
			|| '"columns":[' || coalesce(group_concat(iif(bytes <= 2048, item, NULL), ','), '') || ']'
			|| iif(max(bytes) > 2048, ',"columnsTotal":' || count(*), '') || '}'
		FROM pk HAVING count(*) > 0), 'null')
	|| ',"columns":[' || coalesce((SELECT group_concat(item, ',' ORDER BY position) FROM kept), '') || ']'
	|| iif((SELECT count(*) FROM kept) < (SELECT count(*) FROM columns, t WHERE table_id = t.id),
		',"columnsTotal":' || (SELECT count(*) FROM columns, t WHERE table_id = t.id), '')
	|| ',"foreignKeys":[' || coalesce((SELECT group_concat(json, ',') FROM fks WHERE bytes <= 8192), '') || ']'
	|| coalesce((SELECT ',"foreignKeysTotal":' || count(*) FROM fks HAVING max(bytes) > 8192), '')
	|| coalesce((SELECT ',"indexes":[' || coalesce(group_concat(iif(bytes <= 4096, json, NULL), ','), '') || ']'
			|| iif(max(bytes) > 4096, ',"indexesTotal":' || count(*), '')
		FROM ixs HAVING count(*) > 0), '')
	|| coalesce((SELECT ',"referencedBy":[' || coalesce(group_concat(iif(n <= 100 AND bytes <= 6144, ref_json, NULL), ','), '') || ']'
			|| iif(max(n) > 100 OR max(bytes) > 6144, ',"referencedByTotal":' || count(*), '')
		FROM refs HAVING count(*) > 0), '')
	|| coalesce(` + usedByMember(4096) + `, '')
	|| '}' AS answer,
	(SELECT max(position) FROM kept) AS last,
	EXISTS (SELECT 1 FROM cols WHERE position > (SELECT max(position) FROM kept)) AS more
FROM t`)

// TableJSON returns the schema_get_table answer for a table of t's current
// release, as the JSON of answer.Table. With connection "", the name
// must be unique across connections: Ambiguous lists the qualified names
// otherwise. An unknown table is NotFound.
//
// An answer longer than AnswerBudget is cut (see qTableCut): its columns
// continue on the pages that TableJSONFrom reads from its nextCursor.
func (s *Store) TableJSON(ctx context.Context, t Target, connection, name string) ([]byte, error) {
	ctx = bounded(ctx)
	var conn any // NULL: any connection
	if connection != "" {
		conn = connection
	}
	rows, err := s.query(ctx, qTableJSON, t.Project, t.Environment, name, conn)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	release, found := false, 0
	var answer []byte
	var foundConn string
	for rows.Next() {
		var c, n sql.NullString
		var js sql.RawBytes
		if err := rows.Scan(&c, &n, &js); err != nil {
			return nil, s.readError(err)
		}
		release = true
		if js != nil {
			found++
			answer = append(answer[:0], js...)
			foundConn = c.String
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(err)
	}
	rows.Close()
	switch {
	case !release:
		return nil, noRelease(t)
	case found == 1 && len(answer) <= AnswerBudget:
		return answer, nil
	case found == 1:
		return s.tableCut(ctx, t, foundConn, name, 0)
	case found == 0 && connection != "":
		return nil, Errorf(NotFound, "table %q not found in connection %q", name, connection)
	case found == 0:
		return nil, Errorf(NotFound, "table %q not found", name)
	}
	return nil, s.ambiguous(ctx, t, name)
}

// ambiguous is the Ambiguous error of bare table name in t's current
// release, listing the qualified names.
func (s *Store) ambiguous(ctx context.Context, t Target, name string) error {
	rows, err := s.query(ctx, qTableNames, t.Project, t.Environment, name)
	if err != nil {
		return err
	}
	defer rows.Close()
	var names []string
	var total int
	for rows.Next() {
		var n string
		if err := rows.Scan(&n, &total); err != nil {
			return s.readError(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return s.readError(err)
	}
	return Errorf(Ambiguous, "table %q is in several connections: %s; ask for one of them",
		name, nameList(names, total))
}

// TableJSONFrom returns the page of a table's schema_get_table answer that
// cursor, the nextCursor of an answer of TableJSON (or of this), names.
func (s *Store) TableJSONFrom(ctx context.Context, t Target, cursor string) ([]byte, error) {
	ctx = bounded(ctx)
	ri, err := s.Current(ctx, t)
	if err != nil {
		return nil, err
	}
	key, err := decodeCursor(cursor, "columns", ri, 3)
	if err != nil {
		return nil, err
	}
	from, err := strconv.Atoi(key[2])
	if err != nil || from < 0 {
		return nil, Errorf(InvalidArgument, "cursor is not valid: pass nextCursor exactly as a schema_get_table answer gave it")
	}
	return s.tableCut(ctx, t, key[0], key[1], from)
}

// CursorTable names the table that a nextCursor of schema_get_table pages,
// or returns false when cursor is not one.
func CursorTable(cursor string) (connection, name string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	var parts []string
	if err != nil || json.Unmarshal(b, &parts) != nil || len(parts) != 5 || parts[0] != "columns" {
		return "", "", false
	}
	return parts[2], parts[3], true
}

// tableCut returns the cut answer for a table, its columns from position
// from on (see qTableCut).
func (s *Store) tableCut(ctx context.Context, t Target, connection, name string, from int) ([]byte, error) {
	var ri ReleaseInfo
	var answer []byte
	var last sql.NullInt64
	var more bool
	err := s.view(ctx, func(tx readTx) error {
		var err error
		if ri, _, err = current(ctx, tx, t); err != nil {
			return err
		}
		err = tx.row(ctx, qTableCut, t.Project, t.Environment, connection, name, from).Scan(&answer, &last, &more)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "table %q not found in connection %q", name, connection)
		}
		return err
	})
	if err != nil || !more {
		return answer, err
	}
	next := cursor{list: "columns", release: releaseTag(ri),
		key: []string{connection, name, strconv.FormatInt(last.Int64+1, 10)}}.encode()
	// The answer ends with '}': the cursor goes before it.
	return append(append(answer[:len(answer)-1], `,"nextCursor":"`+next+`"`...), '}'), nil
}
