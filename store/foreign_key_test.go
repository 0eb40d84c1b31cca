package store

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestKeyRows checks the buffer of a release's foreign keys: every field
// comes back as it went in, whatever bytes it holds, and the rows sort as
// foreign_keys' primary key does (byte order of the four names, then the
// position), across chunks and with a row larger than a chunk.
func TestKeyRows(t *testing.T) {
	type row struct {
		fields   [keyFields]string
		position int
		tableID  int64
	}
	pick := []string{"", "a", "a\x00", "a\x00b", "ab", "b", "고객", "\xff", "main", strings.Repeat("z", 300)}
	r := rand.New(rand.NewPCG(1, 2))
	var rows []row
	for i := range 20_000 {
		var x row
		for f := range x.fields {
			x.fields[f] = pick[r.IntN(len(pick))]
		}
		x.position, x.tableID = r.IntN(40), int64(i)<<32+int64(r.IntN(1<<31))
		rows = append(rows, x)
	}
	rows = append(rows, row{fields: [keyFields]string{"main", strings.Repeat("x", keyChunk+10), "main", "t", "", "[]", "[]", ""}})
	var k keyRows
	for _, x := range rows {
		f := x.fields
		k.add(f[0], f[1], f[2], f[3], x.position, x.tableID, f[4], f[5], f[6], f[7])
	}
	if len(k.chunks) < 3 {
		t.Fatalf("%d chunks: the test should span several", len(k.chunks))
	}
	slices.SortStableFunc(k.rows, k.compare)
	slices.SortStableFunc(rows, func(a, b row) int {
		for f := range 4 {
			if c := strings.Compare(a.fields[f], b.fields[f]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.position, b.position)
	})
	for i, ref := range k.rows {
		rd := k.reader(ref)
		var got row
		for f := range 4 {
			got.fields[f] = string(rd.bytes())
		}
		got.position, got.tableID = int(rd.uint()), rd.int()
		for f := 4; f < keyFields; f++ {
			got.fields[f] = string(rd.bytes())
		}
		want := rows[i]
		// Rows equal in the sort's fields may come in another order.
		if [4]string(got.fields[:4]) != [4]string(want.fields[:4]) || got.position != want.position {
			t.Fatalf("row %d sorts as %q %d, want %q %d", i, got.fields[:4], got.position, want.fields[:4], want.position)
		}
	}
	// Every row came back whole: compare the multisets.
	key := func(x row) string { return fmt.Sprintf("%q %d %d", x.fields, x.position, x.tableID) }
	var back []string
	for _, ref := range k.rows {
		rd := k.reader(ref)
		var x row
		for f := range 4 {
			x.fields[f] = string(rd.bytes())
		}
		x.position, x.tableID = int(rd.uint()), rd.int()
		for f := 4; f < keyFields; f++ {
			x.fields[f] = string(rd.bytes())
		}
		back = append(back, key(x))
	}
	var sent []string
	for _, x := range rows {
		sent = append(sent, key(x))
	}
	slices.Sort(back)
	slices.Sort(sent)
	if !slices.Equal(back, sent) {
		t.Fatal("the rows read back differ from the rows added")
	}
}
