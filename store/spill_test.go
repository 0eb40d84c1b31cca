package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// keyRow is a foreign key as a writer buffers it.
type keyRow struct {
	fields   [8]string // ref_connection, ref_table, connection, table_name, name, columns, ref_columns, on_delete
	position int
	tableID  int64
}

// encode is the record addKey makes of the row.
func (x keyRow) encode() []byte {
	var b []byte
	for _, f := range x.fields[:4] {
		b = appendKey(b, f)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(x.position))
	b = binary.AppendVarint(b, x.tableID)
	for _, f := range x.fields[4:] {
		b = appendField(b, f)
	}
	return b
}

func decodeKeyRow(rec []byte) keyRow {
	r := keyReader(rec)
	var x keyRow
	for f := range 4 {
		x.fields[f] = r.key()
	}
	x.position, x.tableID = int(r.uint32()), r.int()
	for f := 4; f < 8; f++ {
		x.fields[f] = string(r.bytes())
	}
	return x
}

// TestSpill checks the external sort of a release's foreign keys: every
// field comes back as it went in, whatever bytes it holds (a NUL
// included), and the rows come out as foreign_keys' primary key orders
// them (byte order of the four names, then the position), whether they
// stayed in memory or went through many runs on disk, with a record
// larger than a chunk. No file is left behind.
func TestSpill(t *testing.T) {
	pick := []string{"", "a", "a\x00", "a\x00b", "a\x00\x01", "ab", "b", "고객", "\xff", "main", strings.Repeat("z", 300)}
	r := rand.New(rand.NewPCG(1, 2))
	var rows []keyRow
	seen := map[string]bool{}
	for i := 0; len(rows) < 20_000; i++ {
		var x keyRow
		for f := range x.fields {
			x.fields[f] = pick[r.IntN(len(pick))]
		}
		x.position, x.tableID = r.IntN(40), int64(i)<<32+int64(r.IntN(1<<31))
		k := fmt.Sprintf("%q %d", x.fields[:4], x.position)
		if seen[k] { // the key is foreign_keys' primary key: unique
			continue
		}
		seen[k] = true
		rows = append(rows, x)
	}
	rows = append(rows, keyRow{fields: [8]string{"main", strings.Repeat("x", spillChunk+10), "main", "t", "", "[]", "[]", ""}})
	want := slices.Clone(rows)
	slices.SortFunc(want, func(a, b keyRow) int {
		for f := range 4 {
			if c := strings.Compare(a.fields[f], b.fields[f]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.position, b.position)
	})
	for _, limit := range []int{spillBytes, 64 << 10} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			dir := t.TempDir()
			s := newSpill("foreign keys", dir, limit)
			defer s.close()
			for _, x := range rows {
				if err := s.add(x.encode()); err != nil {
					t.Fatal(err)
				}
			}
			if limit < spillBytes && len(s.runs) < 10 {
				t.Fatalf("%d runs: the test should write many", len(s.runs))
			}
			if limit == spillBytes && s.file != nil {
				t.Fatal("a spill within its limit wrote a file")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the spill's file is in %s: %v", dir, ents)
			}
			var got []keyRow
			if err := s.each(func(rec []byte) error { got = append(got, decodeKeyRow(rec)); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows back, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d is %q %d, want %q %d", i, got[i].fields, got[i].position, want[i].fields, want[i].position)
				}
			}
			// Emptied: it takes new records.
			if err := s.add(rows[0].encode()); err != nil {
				t.Fatal(err)
			}
			n := 0
			s.each(func([]byte) error { n++; return nil })
			if n != 1 {
				t.Errorf("%d records after a second add, want 1", n)
			}
		})
	}
}

// TestAppendKey checks that byte order of keys is the order of the
// strings, followed by anything.
func TestAppendKey(t *testing.T) {
	strs := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "\x01", "a", "a\x00", "a\x00\x00", "a\x01", "ab", "b", "\xff"}
	for _, a := range strs {
		for _, b := range strs {
			ka := append(appendKey(nil, a), 0xff)
			kb := append(appendKey(nil, b), 0x00)
			if got, want := bytes.Compare(ka, kb), strings.Compare(a, b); want != 0 && got != want {
				t.Errorf("%q vs %q: keys compare %d, strings %d", a, b, got, want)
			}
			r := keyReader(appendKey(nil, a))
			if got := r.key(); got != a || len(r) != 0 {
				t.Errorf("key %q read back as %q, %d bytes left", a, got, len(r))
			}
		}
	}
}
