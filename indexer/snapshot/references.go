package snapshot

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
)

// releaseState is what a Decoder remembers of a release to check rules
// that span tables and logics: no table twice in a connection, no logic
// twice, and the columns a foreign key references present in the table,
// which may come later in the document. It keeps 64-bit hashes, not
// names: about 16 bytes a table, 8 a column and 10 a logic, so 100,000
// tables of 20 columns take some 20 MiB. The hashes are keyed with a seed
// drawn per decode, so no document can be made to collide on purpose; by
// chance, two of a million names collide once in some 30 million
// documents.
//
// A foreign key to a table not seen yet waits for the end of the
// document as a pendingRef, 24 bytes, and its names in one byte arena,
// rather than as Go strings and lists: a document of many keys to tables
// further on holds one for each.
type releaseState struct {
	seed    maphash.Seed
	h       maphash.Hash
	tables  map[uint64]colSpan // by tableKey
	columns []uint64           // hashes of column names, by table
	logics  map[uint64]struct{}
	pending []pendingRef // foreign keys to tables not seen yet
	arena   []byte       // their names; see pendingRef
}

// A pendingRef is a foreign key's reference waiting for its table: where
// the key is (tables[table].foreignKeys[fk]), the table's key, and where
// arena holds the table's connection and name and the referenced columns,
// each a uvarint length and its bytes, after their count.
type pendingRef struct {
	key       uint64
	table, fk uint32
	off       int
}

// colSpan locates a table's columns in releaseState.columns. The bounds
// (1,000,000 tables of 4,096 columns) fit in 32 bits.
type colSpan struct{ start, n uint32 }

// ref is a foreign key's reference, waiting for its table to come.
type ref struct {
	table, fk  int    // where: tables[table].foreignKeys[fk]
	conn, name string // the referenced table
	cols       []string
}

func newReleaseState() releaseState {
	s := releaseState{seed: maphash.MakeSeed(), tables: map[uint64]colSpan{}, logics: map[uint64]struct{}{}}
	s.h.SetSeed(s.seed)
	return s
}

// tableKey hashes a table's connection and name. Names hold no control
// character once checked, so a NUL separates the two unambiguously.
func (s *releaseState) tableKey(conn, name string) uint64 {
	s.h.Reset()
	s.h.WriteString(conn)
	s.h.WriteByte(0)
	s.h.WriteString(name)
	return s.h.Sum64()
}

// addTable records the columns of the table with key.
func (s *releaseState) addTable(key uint64, cols []Column) {
	span := colSpan{start: uint32(len(s.columns)), n: uint32(len(cols))}
	for _, c := range cols {
		s.columns = append(s.columns, maphash.String(s.seed, c.Name))
	}
	s.tables[key] = span
}

// hasColumn reports whether the table of span has a column named name.
func (s *releaseState) hasColumn(span colSpan, name string) bool {
	return slices.Contains(s.columns[span.start:span.start+span.n], maphash.String(s.seed, name))
}

// addLogic records a logic's name and reports whether it was new.
func (s *releaseState) addLogic(name string) bool {
	k := maphash.String(s.seed, name)
	if _, ok := s.logics[k]; ok {
		return false
	}
	s.logics[k] = struct{}{}
	return true
}

// checkRef checks the columns of a reference when its table is known, and
// keeps it for the end of the document when not (yet).
func (s *releaseState) checkRef(d *decoder, r ref) {
	if r.name == "" {
		return
	}
	key := s.tableKey(r.conn, r.name)
	span, ok := s.tables[key]
	if !ok {
		s.pending = append(s.pending, pendingRef{key: key, table: uint32(r.table), fk: uint32(r.fk), off: len(s.arena)})
		s.arena = binary.AppendUvarint(s.arena, uint64(len(r.cols)))
		for _, n := range append([]string{r.conn, r.name}, r.cols...) {
			s.arena = binary.AppendUvarint(s.arena, uint64(len(n)))
			s.arena = append(s.arena, n...)
		}
		return
	}
	s.checkColumns(d, r, span)
}

// checkPending checks the references kept for the end of the document: a
// table still unknown is not in the release, and is kept as is.
func (s *releaseState) checkPending(d *decoder) {
	for _, p := range s.pending {
		span, ok := s.tables[p.key]
		if !ok {
			continue
		}
		b := s.arena[p.off:]
		next := func() string {
			n, w := binary.Uvarint(b)
			v := string(b[w : w+int(n)])
			b = b[w+int(n):]
			return v
		}
		cols, w := binary.Uvarint(b)
		b = b[w:]
		r := ref{table: int(p.table), fk: int(p.fk), conn: next(), name: next(), cols: make([]string, cols)}
		for i := range r.cols {
			r.cols[i] = next()
		}
		s.checkColumns(d, r, span)
	}
	s.pending, s.arena = nil, nil
}

func (s *releaseState) checkColumns(d *decoder, r ref, span colSpan) {
	for m, c := range r.cols {
		if c != "" && !s.hasColumn(span, c) {
			d.addAt(fmt.Sprintf("tables[%d].foreignKeys[%d].references.columns[%d]", r.table, r.fk, m),
				"column %s is not in table %s", quote(c), quote(r.conn+"."+r.name))
		}
	}
}
