package lint

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The rules that judge a table by itself, as the snapshot gives it: each
// returns its findings about the table, their Table left for the caller
// to set.

// noPrimaryKey is NO_PRIMARY_KEY: a table without a primary key, whose
// rows nothing identifies (replication, updates by key and most ORMs need
// one).
func noPrimaryKey(t *snapshot.Table) []snapshot.Finding {
	if len(t.PrimaryKey) > 0 {
		return nil
	}
	return []snapshot.Finding{{Code: snapshot.CodeNoPrimaryKey, Message: "table has no primary key"}}
}

// foreignKeysWithoutIndex is FK_WITHOUT_INDEX: a foreign key whose columns
// are not the leading columns of the primary key or of an index. A delete
// from (or a key update of) the referenced table must find the rows that
// point at it, and so must a join from it: without such an index, each
// scans the whole referencing table.
//
// The key's columns must be the first columns of the index, in any order:
// PostgreSQL looks the referencing rows up with an equality on every key
// column, and a B-tree whose leading columns are exactly those answers it
// with one range, whatever their order. An index that starts with only
// some of them (a, for a key (a, b)) narrows the scan but still reads
// every row of each a; one that holds them after another column does not
// help at all. Both count as no index.
func foreignKeysWithoutIndex(t *snapshot.Table) []snapshot.Finding {
	var out []snapshot.Finding
	for i, fk := range t.ForeignKeys {
		if len(fk.Columns) == 0 || leads(fk.Columns, t.PrimaryKey) {
			continue
		}
		covered := false
		for _, ix := range t.Indexes {
			if leads(fk.Columns, ix.Columns) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		out = append(out, snapshot.Finding{Code: snapshot.CodeFKWithoutIndex, Item: i, Column: keyColumn(fk.Columns),
			Message: cutMessage(keyText(t, fk) + " has no index that starts with its columns")})
	}
	return out
}

// leads reports whether the first columns of index, as many as cols holds
// distinct names, are those names, in any order.
func leads(cols, index []string) bool {
	if len(cols) == 1 { // most keys: no allocation
		return len(index) > 0 && index[0] == cols[0]
	}
	want := make(map[string]bool, len(cols))
	for _, c := range cols {
		want[c] = true
	}
	if len(index) < len(want) {
		return false
	}
	for _, c := range index[:len(want)] {
		if !want[c] {
			return false
		}
		delete(want, c) // a name twice in the index's prefix leaves another out
	}
	return len(want) == 0
}

// duplicateForeignKeys is DUPLICATE_FOREIGN_KEY: a foreign key with the
// same columns and target as an earlier key of the table: the same pairs
// of a column and the column it references, in any order, to the same
// table. The second is checked on every write for nothing. Each later one
// is reported, naming the first.
func duplicateForeignKeys(t *snapshot.Table) []snapshot.Finding {
	if len(t.ForeignKeys) < 2 {
		return nil
	}
	var out []snapshot.Finding
	var first map[string]int // by keySignature, for a table of many keys
	if len(t.ForeignKeys) > 8 {
		first = make(map[string]int, len(t.ForeignKeys))
	}
	for i, fk := range t.ForeignKeys {
		j := -1
		if first != nil {
			k := keySignature(t, fk)
			if seen, ok := first[k]; ok {
				j = seen
			} else {
				first[k] = i
			}
		} else {
			for e := range i {
				if sameKey(t, t.ForeignKeys[e], fk) {
					j = e
					break
				}
			}
		}
		if j < 0 {
			continue
		}
		out = append(out, snapshot.Finding{Code: snapshot.CodeDuplicateForeignKey, Item: i,
			Column:  keyColumn(fk.Columns),
			Message: cutMessage(keyText(t, fk) + " repeats " + keyName(t.ForeignKeys[j], j))})
	}
	return out
}

// sameKey reports whether two foreign keys of t constrain the same: the
// same target and pairs of columns.
func sameKey(t *snapshot.Table, a, b snapshot.ForeignKey) bool {
	if a.RefTable != b.RefTable || len(a.Columns) != len(b.Columns) {
		return false
	}
	if len(a.Columns) == 1 && len(a.RefColumns) == 1 && len(b.RefColumns) == 1 {
		return a.Columns[0] == b.Columns[0] && a.RefColumns[0] == b.RefColumns[0] &&
			cmp.Or(a.RefConnection, t.Connection) == cmp.Or(b.RefConnection, t.Connection)
	}
	return keySignature(t, a) == keySignature(t, b)
}

// keySignature identifies what a foreign key constrains: its target and
// its sorted pairs of columns.
func keySignature(t *snapshot.Table, fk snapshot.ForeignKey) string {
	pairs := make([]string, len(fk.Columns))
	for i, c := range fk.Columns {
		ref := ""
		if i < len(fk.RefColumns) {
			ref = fk.RefColumns[i]
		}
		pairs[i] = c + "\x00" + ref
	}
	slices.Sort(pairs)
	conn := fk.RefConnection
	if conn == "" {
		conn = t.Connection
	}
	return conn + "\x01" + fk.RefTable + "\x01" + strings.Join(pairs, "\x01")
}
