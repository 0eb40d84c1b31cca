package store

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

func TestDetailRoundTrip(t *testing.T) {
	snap := sampleSnapshot()
	refs := referencedBy(snap)
	extra := Table{Name: "odd", Connection: "c", PrimaryKey: []string{"a", "b"},
		Columns: []Column{{Name: "a", Type: "int", Nullable: true, Comment: "é 고객 \x00", Default: "'x'",
			Enum: []string{"", "y"}}, {Name: "b", Type: "text"}},
		ForeignKeys: []ForeignKey{{Name: "", Columns: []string{"a", "b"}, RefConnection: "c", RefTable: "odd",
			RefColumns: []string{"b", "a"}, OnDelete: "cascade"}},
		Indexes: []Index{{Name: "i", Columns: []string{"b"}, Unique: true}}}
	tables := append(snap.Tables, extra)
	for i := range tables {
		in := tables[i]
		ref := refs[TableRef{Connection: in.Connection, Name: in.Name}]
		b := encodeDetail(nil, &in, ref)
		out := Table{Name: in.Name, Connection: in.Connection, Comment: in.Comment}
		if err := decodeDetail(b, &out); err != nil {
			t.Fatalf("%s: decode: %v", in.Name, err)
		}
		in.ReferencedBy = ref
		if diff := gocmp.Diff(in, out); diff != "" {
			t.Errorf("%s: round trip mismatch (-want +got):\n%s", in.Name, diff)
		}
		cols, err := detailColumns(b)
		if err != nil || len(cols) != len(in.Columns) {
			t.Fatalf("%s: detailColumns = %d, %v; want %d", in.Name, len(cols), err, len(in.Columns))
		}
		for j, c := range cols {
			if c.name != in.Columns[j].Name || c.comment != in.Columns[j].Comment {
				t.Errorf("%s: column %d = %q %q, want %q %q", in.Name, j, c.name, c.comment,
					in.Columns[j].Name, in.Columns[j].Comment)
			}
		}
	}
}

func TestDetailDamaged(t *testing.T) {
	snap := sampleSnapshot()
	tbl := snap.Tables[0]
	b := encodeDetail(nil, &tbl, []Reference{{Table: "x", Connection: "main", Columns: []string{"a"}, RefColumns: []string{"id"}}})
	damaged := [][]byte{nil, {}, {2}, append(append([]byte{}, b...), 0)}
	for n := range len(b) { // every truncation
		damaged = append(damaged, b[:n])
	}
	for i := range b { // every byte set to 0xff (huge varints, bad bools)
		d := append([]byte{}, b...)
		d[i] = 0xff
		damaged = append(damaged, d)
	}
	for _, d := range damaged {
		var out Table
		err := decodeDetail(d, &out)
		if len(d) == len(b)+1 || len(d) < len(b) {
			if !errors.Is(err, errDetail) {
				t.Errorf("decodeDetail(%x) = %v, want errDetail", d, err)
			}
		}
		detailColumns(d) // must not panic
	}
}

func FuzzDetail(f *testing.F) {
	snap := sampleSnapshot()
	for i := range snap.Tables {
		f.Add(encodeDetail(nil, &snap.Tables[i], nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var out Table
		if decodeDetail(b, &out) == nil {
			// What decodes re-encodes to something that decodes the same.
			var again Table
			if err := decodeDetail(encodeDetail(nil, &out, out.ReferencedBy), &again); err != nil {
				t.Fatalf("re-encoded %x does not decode: %v", b, err)
			}
			if diff := gocmp.Diff(out, again); diff != "" {
				t.Errorf("re-encoding %x changed it (-first +second):\n%s", b, diff)
			}
		}
		detailColumns(b)
	})
}
