package store

import (
	"context"
	"encoding/binary"
	"fmt"
)

// How a release writes its foreign keys. foreign_keys is kept in the
// order of the table a key points at (see migrations/0004_relational.sql),
// which is not the order a snapshot lists its tables in: inserted as they
// come, the keys would land all over the table's b-tree, and every page
// split would move whole rows of it. So a release's keys wait in a spill
// (spill.go: a bounded buffer, sorted runs on disk beyond it) and are
// written last, sorted, and so appended.

// insertForeignKey writes a key with its parts of the schema_get_table
// answers: json as its own table's foreignKeys show it (foreignKeyJSON),
// ref_json as the referenced table's referencedBy does (referenceJSON).
// json is in the index foreign_keys_by_table, so that a table's own keys
// are read from the index alone (migrations/0006_foreign_key_json.sql).
// The VALUES tuple is what a batch repeats for more rows.
const insertForeignKey = `INSERT INTO foreign_keys (release, ref_connection, ref_table, connection, table_name, position,
		table_id, name, columns, ref_columns, on_delete, json, ref_json)
	SELECT release, ref_connection, ref_table, connection, table_name, position,
		table_id, name, columns, ref_columns, on_delete, ` + foreignKeyJSON + `, ` + referenceJSON + `
	FROM (SELECT column1 AS release, column2 AS ref_connection, column3 AS ref_table, column4 AS connection,
			column5 AS table_name, column6 AS position, column7 AS table_id, column8 AS name,
			column9 AS columns, column10 AS ref_columns, column11 AS on_delete
		FROM (VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)))`

// addKey buffers one foreign key for writeKeys: its sort key (the
// primary key of foreign_keys after release), then its other fields.
func (w *ReleaseWriter) addKey(refConnection, refTable, connection, table string, position int, tableID int64,
	name, columns, refColumns, onDelete string) error {
	b := w.rec[:0]
	b = appendKey(b, refConnection)
	b = appendKey(b, refTable)
	b = appendKey(b, connection)
	b = appendKey(b, table)
	b = binary.BigEndian.AppendUint32(b, uint32(position))
	b = binary.AppendVarint(b, tableID)
	b = appendField(b, name)
	b = appendField(b, columns)
	b = appendField(b, refColumns)
	b = appendField(b, onDelete)
	w.rec = b
	return w.keys.add(b)
}

// writeKeys writes the foreign keys of the release, in key order.
func (w *ReleaseWriter) writeKeys(ctx context.Context) error {
	return w.keys.each(func(rec []byte) error {
		r := keyReader(rec)
		refConnection, refTable, connection, table := r.key(), r.key(), r.key(), r.key()
		position, tableID := int(r.uint32()), r.int()
		name, columns, refColumns, onDelete := string(r.bytes()), string(r.bytes()), string(r.bytes()), string(r.bytes())
		if err := w.foreignKeys.add(ctx, w.release, refConnection, refTable, connection, table, position,
			tableID, nullString(name), columns, refColumns, nullString(onDelete)); err != nil {
			return fmt.Errorf("foreign key %d of table %q: %w", position, table, err)
		}
		return nil
	})
}
