package indexer

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hubsnap/hubsnap/store"
)

// maxProblems caps how many validation problems one error reports.
const maxProblems = 50

// SnapshotError reports a snapshot document that cannot be used. Each
// problem starts with the path of the offending value, such as
// `tables[3].columns[2].name: duplicate "email"`.
type SnapshotError struct {
	Problems []string
	More     bool // more problems than Problems holds
}

// Error returns the first problem and how many others there are.
func (e *SnapshotError) Error() string {
	msg := "invalid snapshot: " + e.Problems[0]
	switch n := len(e.Problems) - 1; {
	case e.More:
		msg += fmt.Sprintf(" (and %d+ more problems)", n)
	case n == 1:
		msg += " (and 1 more problem)"
	case n > 1:
		msg += fmt.Sprintf(" (and %d more problems)", n)
	}
	return msg
}

func problem(format string, args ...any) *SnapshotError {
	return &SnapshotError{Problems: []string{fmt.Sprintf(format, args...)}}
}

// Decode parses a snapshot document, checks it against the rules of the
// snapshot format and returns the sanitized snapshot: only the fields the
// format names survive. Errors are *SnapshotError and name the offending
// path. Origin is what the document's "origin" says (release files carry
// one); callers decoding anything but a release file set it themselves.
func Decode(data []byte) (*store.Snapshot, error) {
	return collect(bytes.NewReader(data))
}

// collect is Decode for a document read from r: DecodeStream, gathering
// the parts into one snapshot. A read error of r comes back as is.
func collect(r io.Reader) (*store.Snapshot, error) {
	c := &collector{}
	if err := DecodeStream(r, c); err != nil {
		return nil, err
	}
	return &c.snap, nil
}

// collector is the Handler of Decode: it copies every part into a snapshot,
// carving the lists of all tables out of a few large blocks rather than
// allocating each on its own.
type collector struct {
	snap    store.Snapshot
	columns slab[store.Column]
	fks     slab[store.ForeignKey]
	indexes slab[store.Index]
	params  slab[store.Param]
	names   slab[string]
}

func (c *collector) Release(r store.Release) error { c.snap.Release = r; return nil }
func (c *collector) Origin(o store.Origin) error   { c.snap.Origin = o; return nil }

func (c *collector) Connection(_ int, conn store.Connection) error {
	c.snap.Connections = append(c.snap.Connections, conn)
	return nil
}

func (c *collector) Table(_ int, t *store.Table) error {
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
	return nil
}

func (c *collector) Logic(_ int, l *store.Logic) error {
	k := *l
	k.Params = c.params.clone(l.Params)
	k.Auth.Roles = c.names.clone(l.Auth.Roles)
	c.snap.Logics = append(c.snap.Logics, k)
	return nil
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
