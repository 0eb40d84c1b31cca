package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A table's detail — its primary key, columns, foreign keys, indexes and
// the foreign keys of other tables that point at it — is kept in one
// column of its row (tables.detail), encoded as below, rather than as rows
// of child tables. schema_get_table then reads one row instead of running
// five queries over some two hundred column values, and indexing a
// release writes one row per table instead of about twenty (see
// migrations/0003_table_detail.sql and the README's benchmarks).
//
// The encoding is private to this package and rebuilt from the release
// files whenever it changes (a migration empties the index): a version
// byte, then uvarint counts and lengths, strings as length and bytes,
// booleans as one byte:
//
//	version(1)
//	primaryKey: list
//	columns:    n × (name, type, nullable, comment, default, enum: list)
//	foreignKeys: n × (name, columns: list, refConnection, refTable, refColumns: list, onDelete)
//	indexes:    n × (name, columns: list, unique)
//	referencedBy: n × (connection, table, name, columns: list, refColumns: list)
const detailVersion = 1

// errDetail reports a detail that does not decode: a damaged index.
var errDetail = errors.New("a table's detail in the index is damaged")

type detailWriter struct{ b []byte }

func (w *detailWriter) uint(n int)   { w.b = binary.AppendUvarint(w.b, uint64(n)) }
func (w *detailWriter) str(s string) { w.uint(len(s)); w.b = append(w.b, s...) }

func (w *detailWriter) boolean(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *detailWriter) list(l []string) {
	w.uint(len(l))
	for _, s := range l {
		w.str(s)
	}
}

// encodeDetail encodes t's detail, with refs as its referencedBy.
func encodeDetail(buf []byte, t *Table, refs []Reference) []byte {
	w := &detailWriter{b: append(buf[:0], detailVersion)}
	w.list(t.PrimaryKey)
	w.uint(len(t.Columns))
	for _, c := range t.Columns {
		w.str(c.Name)
		w.str(c.Type)
		w.boolean(c.Nullable)
		w.str(c.Comment)
		w.str(c.Default)
		w.list(c.Enum)
	}
	w.uint(len(t.ForeignKeys))
	for _, fk := range t.ForeignKeys {
		w.str(fk.Name)
		w.list(fk.Columns)
		w.str(fk.RefConnection)
		w.str(fk.RefTable)
		w.list(fk.RefColumns)
		w.str(fk.OnDelete)
	}
	w.uint(len(t.Indexes))
	for _, ix := range t.Indexes {
		w.str(ix.Name)
		w.list(ix.Columns)
		w.boolean(ix.Unique)
	}
	w.uint(len(refs))
	for _, r := range refs {
		w.str(r.Connection)
		w.str(r.Table)
		w.str(r.Name)
		w.list(r.Columns)
		w.list(r.RefColumns)
	}
	return w.b
}

// detailReader decodes; the first error sticks and later reads return
// zero values.
type detailReader struct {
	b   []byte
	err error
}

func (r *detailReader) fail() {
	if r.err == nil {
		r.err = errDetail
	}
	r.b = nil
}

func (r *detailReader) uint() int {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)) { // no count or length exceeds what is left
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return int(n)
}

func (r *detailReader) str() string {
	n := r.uint()
	if n > len(r.b) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *detailReader) boolean() bool {
	if len(r.b) == 0 || r.b[0] > 1 {
		r.fail()
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

func (r *detailReader) list() []string {
	n := r.uint()
	if n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = r.str()
	}
	return l
}

func newDetailReader(b []byte) *detailReader {
	r := &detailReader{b: b}
	if len(b) == 0 || b[0] != detailVersion {
		r.fail()
	} else {
		r.b = b[1:]
	}
	return r
}

// decodeDetail fills t's primary key, columns, foreign keys, indexes and
// referencedBy from b.
func decodeDetail(b []byte, t *Table) error {
	r := newDetailReader(b)
	t.PrimaryKey = r.list()
	if n := r.uint(); n > 0 {
		t.Columns = make([]Column, n)
		for i := range t.Columns {
			c := &t.Columns[i]
			c.Name, c.Type, c.Nullable, c.Comment, c.Default, c.Enum = r.str(), r.str(), r.boolean(), r.str(), r.str(), r.list()
		}
	}
	if n := r.uint(); n > 0 {
		t.ForeignKeys = make([]ForeignKey, n)
		for i := range t.ForeignKeys {
			fk := &t.ForeignKeys[i]
			fk.Name, fk.Columns, fk.RefConnection, fk.RefTable, fk.RefColumns, fk.OnDelete =
				r.str(), r.list(), r.str(), r.str(), r.list(), r.str()
		}
	}
	if n := r.uint(); n > 0 {
		t.Indexes = make([]Index, n)
		for i := range t.Indexes {
			ix := &t.Indexes[i]
			ix.Name, ix.Columns, ix.Unique = r.str(), r.list(), r.boolean()
		}
	}
	if n := r.uint(); n > 0 {
		t.ReferencedBy = make([]Reference, n)
		for i := range t.ReferencedBy {
			ref := &t.ReferencedBy[i]
			ref.Connection, ref.Table, ref.Name, ref.Columns, ref.RefColumns = r.str(), r.str(), r.str(), r.list(), r.list()
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return fmt.Errorf("table %s.%s: %w", t.Connection, t.Name, r.err)
	}
	return nil
}

// detailColumns decodes only the columns' names and comments, for search.
func detailColumns(b []byte) ([]searchColumn, error) {
	r := newDetailReader(b)
	r.list() // primary key
	n := r.uint()
	cols := make([]searchColumn, 0, n)
	for range n {
		name, _, _, comment, _, _ := r.str(), r.str(), r.boolean(), r.str(), r.str(), r.list()
		if r.err != nil {
			break
		}
		cols = append(cols, searchColumn{name: name, comment: comment})
	}
	return cols, r.err
}
