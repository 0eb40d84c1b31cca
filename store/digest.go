package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Digests of tables and logics (migrations/0005_digests.sql): a hash of
// exactly what schema_diff compares, so that equal digests mean "no change"
// and schema_diff reads in full only the tables and logics whose digests
// differ. Whatever the diff shows as a change must change the digest, and
// what it does not compare (positions) must not.

// digester hashes a sequence of strings, each length-prefixed so that no
// two sequences hash alike by running into each other.
type digester struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func newDigester() *digester { return &digester{h: sha256.New()} }

func (d *digester) str(s string) {
	n := binary.PutUvarint(d.buf[:], uint64(len(s)))
	d.h.Write(d.buf[:n])
	d.h.Write([]byte(s))
}

func (d *digester) flag(b bool) {
	if b {
		d.str("1")
	} else {
		d.str("0")
	}
}

// num hashes a count.
func (d *digester) num(n int) {
	k := binary.PutUvarint(d.buf[:], uint64(n))
	d.h.Write(d.buf[:k])
}

func (d *digester) list(names []string) {
	d.num(len(names))
	for _, n := range names {
		d.str(n)
	}
}

// sum returns the digest: the first 128 bits of the SHA-256, in hex.
func (d *digester) sum() string {
	return hex.EncodeToString(d.h.Sum(nil)[:16])
}

// part returns the digest of one part (a foreign key, an index), to be
// sorted with its siblings and hashed in that order: sets of keys hash the
// same in any order.
func part(f func(d *digester)) string {
	d := newDigester()
	f(d)
	return d.sum()
}

// tableDigest is the digest of t. A foreign key that names no connection
// points into the table's own, as the index stores it.
func tableDigest(t *snapshot.Table) string {
	d := newDigester()
	d.str("table")
	d.str(t.Comment)
	cols := slices.Clone(t.Columns)
	slices.SortFunc(cols, func(a, b snapshot.Column) int { return cmp.Compare(a.Name, b.Name) })
	d.str("columns")
	d.num(len(cols))
	for _, c := range cols {
		d.str(c.Name)
		d.str(c.Type)
		d.flag(c.Nullable)
		d.str(c.Comment)
		d.str(c.Default)
		d.list(c.Enum)
	}
	d.str("primaryKey")
	d.list(t.PrimaryKey)
	keys := make([]string, len(t.ForeignKeys))
	for i, fk := range t.ForeignKeys {
		keys[i] = part(func(d *digester) {
			d.str(fk.Name)
			d.list(fk.Columns)
			d.str(cmp.Or(fk.RefConnection, t.Connection))
			d.str(fk.RefTable)
			d.list(fk.RefColumns)
			d.str(fk.OnDelete)
		})
	}
	slices.Sort(keys)
	d.str("foreignKeys")
	d.list(keys)
	idx := make([]string, len(t.Indexes))
	for i, ix := range t.Indexes {
		idx[i] = part(func(d *digester) {
			d.str(ix.Name)
			d.list(ix.Columns)
			d.flag(ix.Unique)
		})
	}
	slices.Sort(idx)
	d.str("indexes")
	d.list(idx)
	return d.sum()
}

// logicDigest is the digest of l. Parameters count by name, roles as a
// set: their order is not compared.
func logicDigest(l *snapshot.Logic) string {
	d := newDigester()
	d.str("logic")
	d.str(l.Description)
	d.str(l.SQL)
	params := slices.Clone(l.Params)
	slices.SortFunc(params, func(a, b snapshot.Param) int { return cmp.Compare(a.Name, b.Name) })
	d.num(len(params))
	for _, p := range params {
		d.str(p.Name)
		d.str(p.Type)
		d.flag(p.Required)
	}
	d.flag(l.Auth.Required)
	roles := slices.Clone(l.Auth.Roles)
	slices.Sort(roles)
	d.list(roles)
	return d.sum()
}
