package store

import (
	"context"
	"database/sql"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// FK_TYPE_MISMATCH compares each foreign-key column's type with the type of
// the column it references, which may be in a table the snapshot gives
// later. keyTypes notes, as each table goes by, its key columns' types and
// what they reference, as numbers; once every table is written, it reads
// the types of the referenced columns, each referenced table once, and
// compares.

// keyTypes holds the foreign-key columns of a release until their types
// are compared: per key column, the number of its type and of the column
// it references; where each table's and key's columns start; and each
// distinct type, referenced table and referenced column once. That is 8
// bytes a key column, 4 a key and a table, whatever the names, plus the
// names of the tables and columns referenced (about 4 MB for the 100,000
// tables and 200,000 keys of storetest.Huge).
type keyTypes struct {
	tables  chunks[uint32] // per table, in order: its first key in keys
	keys    chunks[uint32] // per key, in table order: its first column in columns
	columns chunks[keyCol] // per key column

	types     map[string]uint32 // the number of each type
	typeNames []string          // the type of each number
	canon     []string          // canonicalType of each type number, when computed
	refCanon  map[string]string // canonicalType of each referenced column's type compared

	refTables  map[refTable]uint32  // the number of each referenced table
	refColumns map[refColumn]uint32 // the number of each referenced column
	refList    []refColumn          // the referenced column of each number
}

// keyCol is a column of a foreign key: the number of its type and of the
// column it references (noRef when the key names none for it).
type keyCol struct{ typ, ref uint32 }

const noRef = ^uint32(0)

// refTable is a referenced table: its connection and name.
type refTable struct{ connection, name string }

// refColumn is a referenced column: its table's number and its name.
type refColumn struct {
	table uint32
	name  string
}

// add notes the key columns of the release's next table.
func (k *keyTypes) add(t *snapshot.Table) {
	k.tables.add(uint32(k.keys.len()))
	if len(t.ForeignKeys) == 0 {
		return
	}
	if k.types == nil {
		k.types, k.refTables, k.refColumns = map[string]uint32{}, map[refTable]uint32{}, map[refColumn]uint32{}
	}
	// A key column's type is found by name: among the table's columns,
	// or, when that would take many comparisons, in a map of them.
	keyCols := 0
	for _, fk := range t.ForeignKeys {
		keyCols += len(fk.Columns)
	}
	var byName map[string]string
	if keyCols*len(t.Columns) > 1024 {
		byName = make(map[string]string, len(t.Columns))
		for _, c := range t.Columns {
			byName[c.Name] = c.Type
		}
	}
	typeOf := func(name string) string {
		if byName != nil {
			return byName[name]
		}
		for i := range t.Columns {
			if t.Columns[i].Name == name {
				return t.Columns[i].Type
			}
		}
		return ""
	}
	for _, fk := range t.ForeignKeys {
		k.keys.add(uint32(k.columns.len()))
		rt := refTable{fk.RefConnection, fk.RefTable}
		if rt.connection == "" {
			rt.connection = t.Connection
		}
		table, ok := k.refTables[rt]
		if !ok {
			table = uint32(len(k.refTables))
			k.refTables[rt] = table
		}
		for i, c := range fk.Columns {
			col := keyCol{typ: k.typeNumber(typeOf(c)), ref: noRef}
			if i < len(fk.RefColumns) {
				rc := refColumn{table, fk.RefColumns[i]}
				if col.ref, ok = k.refColumns[rc]; !ok {
					col.ref = uint32(len(k.refList))
					k.refColumns[rc] = col.ref
					k.refList = append(k.refList, rc)
				}
			}
			k.columns.add(col)
		}
	}
}

// typeNumber returns the number of type typ, giving it one if it has none.
func (k *keyTypes) typeNumber(typ string) uint32 {
	n, ok := k.types[typ]
	if !ok {
		n = uint32(len(k.typeNames))
		k.types[typ] = n
		k.typeNames = append(k.typeNames, typ)
		k.canon = append(k.canon, "")
	}
	return n
}

// The types of a referenced table's columns, read in the writer's
// transaction: those of its primary key first, from the covering index
// columns_pk (most keys reference a primary key), then, when a referenced
// column is not among them, all of them.
const (
	qRefKeyTypes = `SELECT c.name, c.type FROM tables t
CROSS JOIN columns c ON c.table_id = t.id AND c.pk_position IS NOT NULL
WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3`
	qRefColumnTypes = `SELECT c.name, c.type FROM tables t
CROSS JOIN columns c ON c.table_id = t.id
WHERE t.release = ?1 AND t.connection = ?2 AND t.name = ?3`
)

// qKeyDetail reads what a finding of FK_TYPE_MISMATCH names of key ?2 of
// table ?1 and its column ?3.
const qKeyDetail = `
SELECT coalesce(name, ''), columns ->> ?3, ref_connection, ref_table, ref_columns ->> ?3, connection, table_name
FROM foreign_keys WHERE table_id = ?1 AND position = ?2`

// refTypes reads the type of each referenced column, by its number: ""
// when its table is not in release rel or lacks it.
func (k *keyTypes) refTypes(ctx context.Context, tx *sql.Tx, rel int64) ([]string, error) {
	out := make([]string, len(k.refList))
	if len(k.refList) == 0 {
		return out, nil
	}
	wanted := make([][]uint32, len(k.refTables)) // each table's referenced columns
	for i, rc := range k.refList {
		wanted[rc.table] = append(wanted[rc.table], uint32(i))
	}
	keyTypes, err := tx.PrepareContext(ctx, qRefKeyTypes)
	if err != nil {
		return nil, err
	}
	defer keyTypes.Close()
	allTypes, err := tx.PrepareContext(ctx, qRefColumnTypes)
	if err != nil {
		return nil, err
	}
	defer allTypes.Close()
	read := func(stmt *sql.Stmt, rt refTable, cols []uint32) (missing bool, err error) {
		rows, err := stmt.QueryContext(ctx, rel, rt.connection, rt.name)
		if err != nil {
			return false, err
		}
		defer rows.Close()
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				return false, err
			}
			for _, c := range cols {
				if k.refList[c].name == name {
					out[c] = typ
				}
			}
		}
		for _, c := range cols {
			missing = missing || out[c] == ""
		}
		return missing, rows.Err()
	}
	for rt, n := range k.refTables {
		missing, err := read(keyTypes, rt, wanted[n])
		if err == nil && missing {
			_, err = read(allTypes, rt, wanted[n])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mismatches calls found with each finding of FK_TYPE_MISMATCH of release
// rel, whose first table id is lo, in the order of its tables and keys.
func (k *keyTypes) mismatches(ctx context.Context, tx *sql.Tx, rel, lo int64, found func(finding, int64) error) error {
	refTypes, err := k.refTypes(ctx, tx, rel)
	if err != nil {
		return err
	}
	for t := range k.tables.len() {
		first, end := k.tables.at(t), uint32(k.keys.len())
		if t+1 < k.tables.len() {
			end = k.tables.at(t + 1)
		}
		for key := first; key < end; key++ {
			start, last := k.keys.at(int(key)), uint32(k.columns.len())
			if int(key)+1 < k.keys.len() {
				last = k.keys.at(int(key) + 1)
			}
			for c := start; c < last; c++ {
				col := k.columns.at(int(c))
				if col.ref == noRef || k.same(col.typ, refTypes[col.ref]) {
					continue
				}
				p := typePair{tableID: lo + int64(t), position: int(key - first), part: int(c - start),
					columnType: k.typeNames[col.typ], refColumnType: refTypes[col.ref]}
				if err := tx.QueryRowContext(ctx, qKeyDetail, p.tableID, p.position, p.part).Scan(&p.keyName, &p.column,
					&p.refConnection, &p.refTable, &p.refColumn, &p.connection, &p.tableName); err != nil {
					return err
				}
				if f, ok := typeMismatch(p); ok {
					if err := found(f, p.tableID); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// same reports whether the key column type numbered typ is the same as
// ref (sameType), computing each canonicalType once. A type not given is
// not judged.
func (k *keyTypes) same(typ uint32, ref string) bool {
	name := k.typeNames[typ]
	if name == ref || name == "" || ref == "" {
		return true
	}
	if k.canon[typ] == "" {
		k.canon[typ] = canonicalType(name)
	}
	c, ok := k.refCanon[ref]
	if !ok {
		if k.refCanon == nil {
			k.refCanon = map[string]string{}
		}
		c = canonicalType(ref)
		k.refCanon[ref] = c
	}
	return k.canon[typ] == c
}

// chunks is a list that grows in chunks of chunkLen: growing it never
// copies it, so that it takes the memory it holds and no more (appending
// to one slice would leave, at each doubling, the old array for the
// garbage collector and raise the heap's peak).
type chunks[T any] struct {
	c [][]T
	n int
}

const chunkLen = 1 << 14

func (c *chunks[T]) add(v T) {
	if c.n%chunkLen == 0 {
		c.c = append(c.c, make([]T, 0, chunkLen))
	}
	c.c[len(c.c)-1] = append(c.c[len(c.c)-1], v)
	c.n++
}

func (c *chunks[T]) at(i int) T { return c.c[i/chunkLen][i%chunkLen] }
func (c *chunks[T]) len() int   { return c.n }
