package lint

import (
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The rules over a release held whole. What they find in a release as it
// is indexed, and the pages of their findings, are tested in store (its
// lintSnapshot plants each problem beside a clean look-alike) and
// mcpserver.

func TestCheckRules(t *testing.T) {
	if err := CheckRules(RuleCodes()); err != nil {
		t.Errorf("CheckRules(RuleCodes()) = %v", err)
	}
	err := CheckRules([]string{"NO_PRIMARY_KEY", "NO_INDEX"})
	if err == nil || !strings.Contains(err.Error(), `"NO_INDEX"`) || !strings.Contains(err.Error(), strings.Join(RuleCodes(), ", ")) {
		t.Errorf("CheckRules(NO_INDEX) = %v; want it to name the code and list every rule", err)
	}
	for _, code := range DefaultRules() {
		if code == snapshot.CodeMissingComment {
			t.Error("MISSING_COMMENT runs by default")
		}
	}
}

// Release finds what a Linter finds table by table and then from the
// index: FK_TYPE_MISMATCH through a key to a table given later, types
// spelled differently but equal, and a table's place in each finding.
func TestRelease(t *testing.T) {
	snap := &snapshot.Snapshot{Tables: []snapshot.Table{
		{Name: "orders", Connection: "main", PrimaryKey: []string{"id"},
			Columns: []snapshot.Column{{Name: "id", Type: "int4"}, {Name: "customer_id", Type: "varchar(20)"}, {Name: "shop_id", Type: "int8"}},
			ForeignKeys: []snapshot.ForeignKey{
				{Name: "orders_customer_fk", Columns: []string{"customer_id"}, RefTable: "customers", RefColumns: []string{"id"}},
				{Columns: []string{"shop_id"}, RefConnection: "main", RefTable: "shops", RefColumns: []string{"id"}},
			},
			Indexes: []snapshot.Index{{Name: "orders_customer_idx", Columns: []string{"customer_id"}}, {Name: "orders_shop_idx", Columns: []string{"shop_id"}}}},
		{Name: "customers", Connection: "main", Columns: []snapshot.Column{{Name: "id", Type: "integer"}}},
		{Name: "shops", Connection: "main", PrimaryKey: []string{"id"}, Columns: []snapshot.Column{{Name: "id", Type: "bigserial"}}},
	}}
	var got []string
	for _, f := range Release(snap) {
		got = append(got, fmt.Sprintf("%d %s %d.%d %s: %s", f.Table, f.Code, f.Item, f.Part, f.Column, f.Message))
	}
	want := []string{
		"1 NO_PRIMARY_KEY 0.0 : table has no primary key",
		"0 FK_TYPE_MISMATCH 0.0 customer_id: type varchar(20), but it references customers.id of type integer (foreign key orders_customer_fk)",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// A table of many keys finds its duplicates by signature, one of few by
// comparing pairs: the same findings either way.
func TestDuplicateForeignKeysManyKeys(t *testing.T) {
	for _, n := range []int{4, 8, 9, 40} {
		tb := &snapshot.Table{Name: "t", Connection: "main"}
		for i := range n {
			tb.ForeignKeys = append(tb.ForeignKeys, snapshot.ForeignKey{Name: fmt.Sprintf("k%d", i), Columns: []string{fmt.Sprintf("c%d", i)},
				RefTable: "p", RefColumns: []string{"id"}})
		}
		// The last repeats the first, in another connection spelling; the
		// one before repeats the second with its pairs in another order.
		tb.ForeignKeys[n-1] = snapshot.ForeignKey{Name: "again", Columns: []string{"c0"}, RefConnection: "main", RefTable: "p", RefColumns: []string{"id"}}
		tb.ForeignKeys[1] = snapshot.ForeignKey{Name: "k1", Columns: []string{"a", "b"}, RefTable: "p", RefColumns: []string{"x", "y"}}
		tb.ForeignKeys[n-2] = snapshot.ForeignKey{Columns: []string{"b", "a"}, RefTable: "p", RefColumns: []string{"y", "x"}}
		var got []string
		for _, f := range duplicateForeignKeys(tb) {
			got = append(got, fmt.Sprintf("%d %s: %s", f.Item, f.Column, f.Message))
		}
		want := []string{
			fmt.Sprintf("%d : foreign key (b, a) to p (y, x) repeats foreign key k1", n-2),
			fmt.Sprintf("%d c0: foreign key again (c0) to p (id) repeats foreign key k0", n-1),
		}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("%d keys: (-want +got):\n%s", n, diff)
		}
	}
}

func TestLeads(t *testing.T) {
	for _, c := range []struct {
		cols, index []string
		want        bool
	}{
		{[]string{"a"}, []string{"a", "b"}, true},
		{[]string{"a"}, []string{"b", "a"}, false},
		{[]string{"a"}, nil, false},
		{[]string{"a", "b"}, []string{"b", "a", "c"}, true},
		{[]string{"a", "b"}, []string{"a"}, false},
		{[]string{"a", "b"}, []string{"a", "c", "b"}, false},
		{[]string{"a", "b"}, []string{"a", "a"}, false},
		{[]string{"a", "a"}, []string{"a"}, true},
	} {
		if got := leads(c.cols, c.index); got != c.want {
			t.Errorf("leads(%q, %q) = %v, want %v", c.cols, c.index, got, c.want)
		}
	}
}
