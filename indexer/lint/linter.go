package lint

import (
	"cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Linter runs the schema rules on the tables of one release, in the
// order the release gives them, without holding them: Table judges each
// by itself as it goes by, and KeyFindings (keys.go) judges the types of
// the foreign keys once every table is in the index.
type Linter struct {
	tables int      // the tables judged so far
	keys   keyTypes // for FK_TYPE_MISMATCH
}

// New returns a Linter for a release's tables.
func New() *Linter { return &Linter{} }

// Table runs the rules that judge a table by itself on t, the release's
// next table, and notes its foreign keys for KeyFindings. t is not kept.
func (l *Linter) Table(t *snapshot.Table) []snapshot.Finding {
	place := l.tables
	l.tables++
	l.keys.add(t)
	var out []snapshot.Finding
	for _, rule := range tableRules {
		if f := rule(t); out == nil {
			out = f
		} else {
			out = append(out, f...)
		}
	}
	for i := range out {
		out[i].Table = place
	}
	return out
}

// Release runs every rule whose findings are written with a release on
// snap, held whole: what Table and KeyFindings find as the release is
// indexed, in the same order.
func Release(snap *snapshot.Snapshot) []snapshot.Finding {
	l := New()
	var out []snapshot.Finding
	for i := range snap.Tables {
		out = append(out, l.Table(&snap.Tables[i])...)
	}
	l.KeyFindings(newHeld(snap), func(f []snapshot.Finding) error { // a held release fails no read
		out = append(out, f...)
		return nil
	})
	return out
}

// held is the Index of a release held whole.
type held struct {
	snap   *snapshot.Snapshot
	tables map[[2]string]*snapshot.Table // by connection and name
}

func newHeld(snap *snapshot.Snapshot) *held {
	h := &held{snap: snap, tables: make(map[[2]string]*snapshot.Table, len(snap.Tables))}
	for i := range snap.Tables {
		t := &snap.Tables[i]
		h.tables[[2]string{t.Connection, t.Name}] = t
	}
	return h
}

// ColumnTypes reads the types as the index does: the last of two columns
// of one name wins.
func (h *held) ColumnTypes(connection, table string, columns []string) ([]string, error) {
	out := make([]string, len(columns))
	if t := h.tables[[2]string{connection, table}]; t != nil {
		for _, c := range t.Columns {
			for i, name := range columns {
				if name == c.Name {
					out[i] = c.Type
				}
			}
		}
	}
	return out, nil
}

// ForeignKey gives a key's RefConnection as the index does: the table's
// own when the snapshot leaves it out.
func (h *held) ForeignKey(table, position int) (snapshot.ForeignKey, string, error) {
	t := &h.snap.Tables[table]
	fk := t.ForeignKeys[position]
	fk.RefConnection = cmp.Or(fk.RefConnection, t.Connection)
	return fk, t.Connection, nil
}
