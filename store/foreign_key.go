package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
)

// How a release writes its foreign keys. foreign_keys is kept in the
// order of the table a key points at (see migrations/0004_relational.sql),
// which is not the order a snapshot lists its tables in: inserted as they
// come, the keys would land all over the table's b-tree, and every page
// split would move whole rows of it. So a release's keys wait in a compact
// buffer and are written last, sorted, and so appended.

// insertForeignKey writes a key and its JSON as schema_get_table shows it
// among the table's foreignKeys, composed from the key's columns. The JSON
// is a plain column rather than a generated one so that the index
// foreign_keys_by_table can hold it (migrations/0006_foreign_key_json.sql);
// this is the expression migration 4 gave the generated column. The
// VALUES tuple is what a batch repeats for more rows.
const insertForeignKey = `INSERT INTO foreign_keys (release, ref_connection, ref_table, connection, table_name, position,
		table_id, name, columns, ref_columns, on_delete, json)
	SELECT release, ref_connection, ref_table, connection, table_name, position,
		table_id, name, columns, ref_columns, on_delete,
		'{' || iif(name IS NULL, '', '"name":' || json_quote(name) || ',')
			|| iif(json_array_length(columns) = 1, '"column":' || (columns -> 0) || ',', '')
			|| '"columns":' || columns
			|| ',"references":{"table":' || json_quote(ref_table)
			|| iif(ref_connection = connection, '', ',"connection":' || json_quote(ref_connection))
			|| iif(json_array_length(ref_columns) = 1, ',"column":' || (ref_columns -> 0), '')
			|| ',"columns":' || ref_columns || '}'
			|| iif(on_delete IS NULL, '', ',"onDelete":' || json_quote(on_delete)) || '}'
	FROM (SELECT column1 AS release, column2 AS ref_connection, column3 AS ref_table, column4 AS connection,
			column5 AS table_name, column6 AS position, column7 AS table_id, column8 AS name,
			column9 AS columns, column10 AS ref_columns, column11 AS on_delete
		FROM (VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)))`

// keyRows holds the foreign keys of a release until they are written:
// each row is its fields, length-prefixed, in one of a list of byte
// chunks, with no pointers for the garbage collector to follow. A row
// takes about as many bytes as its fields.
type keyRows struct {
	chunks [][]byte
	rows   []keyRef
}

// A keyRef locates a row of keyRows: chunk and offset.
type keyRef struct{ chunk, off uint32 }

// keyChunk is the size of a chunk of keyRows.
const keyChunk = 1 << 20

// keyFields is the number of fields of a row: the key's sort fields
// ref_connection, ref_table, connection, table_name, and then name,
// columns, ref_columns and on_delete.
const keyFields = 8

// add buffers one foreign key.
func (k *keyRows) add(refConnection, refTable, connection, table string, position int, tableID int64,
	name, columns, refColumns, onDelete string) {
	fields := [keyFields]string{refConnection, refTable, connection, table, name, columns, refColumns, onDelete}
	size := 2 * binary.MaxVarintLen64
	for _, f := range fields {
		size += binary.MaxVarintLen64 + len(f)
	}
	if len(k.chunks) == 0 || len(k.chunks[len(k.chunks)-1])+size > cap(k.chunks[len(k.chunks)-1]) {
		k.chunks = append(k.chunks, make([]byte, 0, max(keyChunk, size)))
	}
	c := &k.chunks[len(k.chunks)-1]
	k.rows = append(k.rows, keyRef{uint32(len(k.chunks) - 1), uint32(len(*c))})
	b := *c
	for _, f := range fields[:4] {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = binary.AppendUvarint(b, uint64(position))
	b = binary.AppendVarint(b, tableID)
	for _, f := range fields[4:] {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	*c = b
}

// A keyReader reads the fields of a row in order.
type keyReader []byte

func (r *keyReader) bytes() []byte {
	n, w := binary.Uvarint(*r)
	v := (*r)[w : w+int(n)]
	*r = (*r)[w+int(n):]
	return v
}

func (r *keyReader) int() int64 {
	v, w := binary.Varint(*r)
	*r = (*r)[w:]
	return v
}

func (r *keyReader) uint() uint64 {
	v, w := binary.Uvarint(*r)
	*r = (*r)[w:]
	return v
}

func (k *keyRows) reader(ref keyRef) keyReader { return k.chunks[ref.chunk][ref.off:] }

// compare orders rows as foreign_keys' primary key does.
func (k *keyRows) compare(a, b keyRef) int {
	ra, rb := k.reader(a), k.reader(b)
	for range 4 {
		if c := bytes.Compare(ra.bytes(), rb.bytes()); c != 0 {
			return c
		}
	}
	pa, pb := ra.uint(), rb.uint()
	switch {
	case pa < pb:
		return -1
	case pa > pb:
		return 1
	}
	return 0
}

// writeKeys writes the foreign keys of the release, in key order, and
// empties the buffer.
func (w *ReleaseWriter) writeKeys(ctx context.Context) error {
	k := &w.keys
	slices.SortFunc(k.rows, k.compare)
	for _, ref := range k.rows {
		r := k.reader(ref)
		refConnection, refTable, connection, table := string(r.bytes()), string(r.bytes()), string(r.bytes()), string(r.bytes())
		position, tableID := int(r.uint()), r.int()
		name, columns, refColumns, onDelete := string(r.bytes()), string(r.bytes()), string(r.bytes()), string(r.bytes())
		if err := w.foreignKeys.add(ctx, w.release, refConnection, refTable, connection, table, position,
			tableID, nullString(name), columns, refColumns, nullString(onDelete)); err != nil {
			return fmt.Errorf("foreign key %d of table %q: %w", position, table, err)
		}
	}
	*k = keyRows{}
	return nil
}
