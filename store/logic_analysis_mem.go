package store

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// memTables is the analysis's TableSource of a release being written,
// kept as its tables go by: what txTables reads back from the transaction
// (what the analysis reads of a table: its connection, name, columns with
// their type, nullability, default and enum values, and primary key), in
// a compact record per table, so that a logic's lookup costs a map read
// instead of two queries on the writer's connection (which the pipeline's
// statements hold for milliseconds at a time). It is bounded: past its
// bound it drops what it holds and says so (full), and the analysis reads
// the tables from the transaction as before; the import's memory bound
// (docs/design.md, "Memory of an import") holds either way.
type memTables struct {
	byName map[string][]memTable
	enums  map[string]bool   // types of columns that list enum values
	conns  map[string]string // the connections' names, held once
	read   int64             // bytes of the document decoded so far (snapshot.Part.Read)
	bytes  int
	full   bool
	buf    []byte // scratch
}

// memTable is one table: its connection and its record (appendMemTable).
type memTable struct {
	connection string
	rec        []byte
}

// memTablesBytes and memTablesShare bound what a memTables holds: the
// larger of 24 MiB and a third of the document decoded so far. The
// collector lets the heap grow to twice what is live, so what is kept here
// can cost twice as much at the import's peak: the bound keeps any
// document within the import's memory bound of twice its size plus 64 MiB
// (TestImportMemory; 128 MiB of many small tables fill the 24 MiB and are
// then analysed from the transaction), while storetest.Huge (100,000
// tables, 189 MB of JSON, about 52 MiB kept) fits.
const (
	memTablesBytes = 24 << 20
	memTablesShare = 3
)

// memTableBytes is what a table costs besides its record, as allocated:
// the map's slot and its share of the map's growth, the name's copy, the
// slice of one memTable, and each allocation's rounding to a size class.
const memTableBytes = 160

func newMemTables() *memTables {
	return &memTables{byName: map[string][]memTable{}, enums: map[string]bool{}, conns: map[string]string{}}
}

// add keeps table t, unless the source is full.
func (m *memTables) add(t *snapshot.Table) {
	if m.full {
		return
	}
	b := binary.AppendUvarint(m.buf[:0], uint64(len(t.Columns)))
	for i := range t.Columns {
		c := &t.Columns[i]
		b = appendField(b, c.Name)
		b = appendField(b, c.Type)
		var flags byte
		if c.Nullable {
			flags |= 1
		}
		b = append(b, flags)
		b = appendField(b, c.Default)
		b = binary.AppendUvarint(b, uint64(len(c.Enum)))
		for _, e := range c.Enum {
			b = appendField(b, e)
		}
		if len(c.Enum) > 0 && !m.enums[c.Type] {
			m.enums[strings.Clone(c.Type)] = true
			m.bytes += memTableBytes + len(c.Type)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(t.PrimaryKey)))
	for _, k := range t.PrimaryKey {
		b = appendField(b, k)
	}
	m.buf = b
	m.bytes += memTableBytes + len(t.Name) + len(t.Connection) + len(b)
	if m.bytes > max(memTablesBytes, int(m.read/memTablesShare)) {
		m.full = true
		m.byName, m.enums, m.conns, m.buf = nil, nil, nil, nil
		return
	}
	conn, ok := m.conns[t.Connection]
	if !ok {
		conn = strings.Clone(t.Connection)
		m.conns[conn] = conn
		m.bytes += memTableBytes + len(conn)
	}
	name := t.Name
	if _, ok := m.byName[name]; !ok {
		name = strings.Clone(name)
	}
	m.byName[name] = append(m.byName[name], memTable{connection: conn, rec: slices.Clone(b)})
}

// Tables implements analysis.TableSource, as txTables does: the tables
// named name, by connection; with prefix, those whose name starts with
// name, by name and connection.
func (m *memTables) Tables(name string, prefix bool) ([]snapshot.Table, error) {
	out := []snapshot.Table{}
	if !prefix {
		for _, t := range m.byName[name] {
			out = append(out, t.table(name))
		}
	} else {
		for n, ts := range m.byName {
			// As txTables' name > ?1 AND name < ?1 || char(1114111).
			if len(n) > len(name) && strings.HasPrefix(n, name) && n < name+"\U0010FFFF" {
				for _, t := range ts {
					out = append(out, t.table(n))
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b snapshot.Table) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Connection, b.Connection)
	})
	return out, nil
}

// table decodes a table's record.
func (t memTable) table(name string) snapshot.Table {
	r := keyReader(t.rec)
	out := snapshot.Table{Connection: t.connection, Name: name}
	if n := r.uvarint(); n > 0 {
		out.Columns = make([]snapshot.Column, n)
	}
	for i := range out.Columns {
		c := &out.Columns[i]
		c.Name, c.Type = string(r.bytes()), string(r.bytes())
		c.Nullable = r.byte()&1 != 0
		c.Default = string(r.bytes())
		if ne := r.uvarint(); ne > 0 {
			c.Enum = make([]string, ne)
			for j := range c.Enum {
				c.Enum[j] = string(r.bytes())
			}
		}
	}
	out.PrimaryKey = make([]string, r.uvarint())
	for i := range out.PrimaryKey {
		out.PrimaryKey[i] = string(r.bytes())
	}
	return out
}

// EnumTypes implements analysis.TableSource.
func (m *memTables) EnumTypes() ([]string, error) {
	out := make([]string, 0, len(m.enums))
	for t := range m.enums {
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// uvarint reads an unsigned varint.
func (r *keyReader) uvarint() int {
	v, w := binary.Uvarint(*r)
	*r = (*r)[w:]
	return int(v)
}

// byte reads one byte.
func (r *keyReader) byte() byte {
	v := (*r)[0]
	*r = (*r)[1:]
	return v
}
