package snapshot

import (
	"bytes"
	"io"
)

// Decode parses a snapshot document, checks it against the rules of the
// snapshot format and returns the sanitized snapshot: only the fields the
// format names survive. Errors are *Error and name the offending
// path. Origin is what the document's "origin" says (release files carry
// one); callers decoding anything but a release file set it themselves.
func Decode(data []byte) (*Snapshot, error) {
	return collect(bytes.NewReader(data))
}

// collect is Decode for a document read from r, gathering the parts into
// one snapshot. A read error of r comes back as is.
func collect(r io.Reader) (*Snapshot, error) {
	d := NewDecoder(r)
	defer d.Close()
	c := &collector{}
	for d.Next() {
		p := d.Part()
		switch p.Kind {
		case KindRelease:
			c.snap.Release = p.Release
		case KindOrigin:
			c.snap.Origin = p.Origin
		case KindConnection:
			c.snap.Connections = append(c.snap.Connections, p.Connection)
		case KindTable:
			c.table(p.Table)
		case KindLogic:
			c.logic(p.Logic)
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return &c.snap, nil
}

// collector is the state of collect: it copies every part into a snapshot,
// carving the lists of all tables out of a few large blocks rather than
// allocating each on its own.
type collector struct {
	snap    Snapshot
	columns slab[Column]
	fks     slab[ForeignKey]
	indexes slab[Index]
	params  slab[Param]
	names   slab[string]
}

func (c *collector) table(t *Table) {
	k := *t
	k.Columns = c.columns.clone(t.Columns)
	for i := range k.Columns {
		k.Columns[i].Enum = c.names.clone(k.Columns[i].Enum)
	}
	k.PrimaryKey = c.names.clone(t.PrimaryKey)
	k.ForeignKeys = c.fks.clone(t.ForeignKeys)
	for i := range k.ForeignKeys {
		fk := &k.ForeignKeys[i]
		fk.Columns, fk.RefColumns = c.names.clone(fk.Columns), c.names.clone(fk.RefColumns)
	}
	k.Indexes = c.indexes.clone(t.Indexes)
	for i := range k.Indexes {
		k.Indexes[i].Columns = c.names.clone(k.Indexes[i].Columns)
	}
	c.snap.Tables = append(c.snap.Tables, k)
}

func (c *collector) logic(l *Logic) {
	k := *l
	k.Params = c.params.clone(l.Params)
	k.Auth.Roles = c.names.clone(l.Auth.Roles)
	c.snap.Logics = append(c.snap.Logics, k)
}

// slab hands out copies of small slices from large blocks. A copy's
// capacity is its length, so appending to it never writes over another.
type slab[T any] struct{ block []T }

func (s *slab[T]) clone(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	if cap(s.block)-len(s.block) < len(src) {
		s.block = make([]T, 0, max(len(src), min(2*cap(s.block), 1<<16), 64))
	}
	n := len(s.block)
	s.block = append(s.block, src...)
	return s.block[n:len(s.block):len(s.block)]
}
