package lint

import (
	"fmt"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// FK_TYPE_MISMATCH compares each foreign-key column's type with the type of
// the column it references, which may be in a table the snapshot gives
// later. A Linter notes, as each table goes by, its key columns' types and
// what they reference, as numbers (keyTypes); once every table is written,
// KeyFindings reads the types of the referenced columns from the index,
// each referenced table once, and compares.

// Index is what KeyFindings reads of a release once its rows are written:
// store.ReleaseTx after Finish, or a release held whole (Release).
type Index interface {
	// ColumnTypes returns the types of the named columns of the table
	// connection.table of the release, in their order: "" for a column
	// the table lacks, every one "" when the release has no such table.
	ColumnTypes(connection, table string, columns []string) ([]string, error)
	// ForeignKey returns the foreign key at position of the release's
	// table at place table (from 0), its RefConnection given, and that
	// table's connection.
	ForeignKey(table, position int) (snapshot.ForeignKey, string, error)
}

// findingsBatch is how many findings KeyFindings gives found at a time.
const findingsBatch = 1024

// KeyFindings runs FK_TYPE_MISMATCH on the foreign keys of the tables l
// has judged, reading the referenced columns' types from ix, and gives
// its findings to found, a batch at a time, in the order of the tables and
// their keys.
func (l *Linter) KeyFindings(ix Index, found func([]snapshot.Finding) error) error {
	k := &l.keys
	refTypes, err := k.refTypes(ix)
	if err != nil {
		return fmt.Errorf("judge foreign key types: %w", err)
	}
	var batch []snapshot.Finding
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
				position, part := int(key-first), int(c-start)
				fk, connection, err := ix.ForeignKey(t, position)
				if err != nil {
					return fmt.Errorf("judge foreign key types: %w", err)
				}
				if part >= len(fk.Columns) || part >= len(fk.RefColumns) {
					return fmt.Errorf("judge foreign key types: foreign key %d of table %d has no column %d", position, t, part)
				}
				batch = append(batch, typeMismatch(t, position, part, fk, connection, k.typeNames[col.typ], refTypes[col.ref]))
				if len(batch) == findingsBatch {
					if err := found(batch); err != nil {
						return err
					}
					batch = batch[:0]
				}
			}
		}
	}
	if len(batch) > 0 {
		return found(batch)
	}
	return nil
}

// typeMismatch is FK_TYPE_MISMATCH's finding about column part of the
// foreign key fk at position of the table at place table, whose
// connection is connection: a key column of another type (typ) than the
// column it references (refType), after CanonicalType (int4 is integer,
// varchar(20) is character varying(20), serial is integer). Values then
// compare through a cast, which can stop an index from being used, and a
// value of one may not fit the other. A referenced table that is not in
// the release, a referenced column it lacks, and a type not given are not
// judged (keyTypes.same).
func typeMismatch(table, position, part int, fk snapshot.ForeignKey, connection, typ, refType string) snapshot.Finding {
	ref := msgName(fk.RefTable) + "." + msgName(fk.RefColumns[part])
	if fk.RefConnection != connection {
		ref = msgName(fk.RefConnection) + "." + ref
	}
	key := "an unnamed foreign key"
	if fk.Name != "" {
		key = "foreign key " + msgName(fk.Name)
	}
	return snapshot.Finding{Table: table, Code: snapshot.CodeFKTypeMismatch, Item: position, Part: part, Column: fk.Columns[part],
		Message: cutMessage(fmt.Sprintf("type %s, but it references %s of type %s (%s)", msgText(typ), ref,
			msgText(refType), key))}
}

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
	canon     []string          // CanonicalType of each type number, when computed
	refCanon  map[string]string // CanonicalType of each referenced column's type compared

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

// refTypes reads the type of each referenced column, by its number: ""
// when its table is not in the release or lacks it.
func (k *keyTypes) refTypes(ix Index) ([]string, error) {
	out := make([]string, len(k.refList))
	if len(k.refList) == 0 {
		return out, nil
	}
	wanted := make([][]uint32, len(k.refTables)) // each table's referenced columns
	for i, rc := range k.refList {
		wanted[rc.table] = append(wanted[rc.table], uint32(i))
	}
	var names []string
	for rt, n := range k.refTables {
		names = names[:0]
		for _, c := range wanted[n] {
			names = append(names, k.refList[c].name)
		}
		types, err := ix.ColumnTypes(rt.connection, rt.name, names)
		if err != nil {
			return nil, err
		}
		if len(types) != len(names) {
			return nil, fmt.Errorf("the types of %d columns of %s.%s, want %d", len(types), rt.connection, rt.name, len(names))
		}
		for i, c := range wanted[n] {
			out[c] = types[i]
		}
	}
	return out, nil
}

// same reports whether the key column type numbered typ is the same as
// ref, after CanonicalType, computing each CanonicalType once. A type not given is
// not judged.
func (k *keyTypes) same(typ uint32, ref string) bool {
	name := k.typeNames[typ]
	if name == ref || name == "" || ref == "" {
		return true
	}
	if k.canon[typ] == "" {
		k.canon[typ] = CanonicalType(name)
	}
	c, ok := k.refCanon[ref]
	if !ok {
		if k.refCanon == nil {
			k.refCanon = map[string]string{}
		}
		c = CanonicalType(ref)
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
