package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// TestCompareSameContent: two indexes that hold the same releases compare
// equal, whatever order their releases were indexed in, re-indexed or
// deleted (release ids differ, the full-text index keeps deleted rows'
// traces in its segments).
func TestCompareSameContent(t *testing.T) {
	ctx := context.Background()
	a := openStore(t)
	put(t, a, smallSnapshot("shop", "rel_40", "dev", 40, "x", 30), false)
	put(t, a, sampleSnapshot(), true)
	put(t, a, smallSnapshot("shop", "rel_41", "dev", 41, "t", 200), false)
	put(t, a, sampleSnapshot(), true) // again: new ids
	if err := a.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_40"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	b := openStore(t)
	put(t, b, sampleSnapshot(), true)
	put(t, b, smallSnapshot("shop", "rel_41", "dev", 41, "t", 200), false)
	if err := b.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	diffs, err := a.Compare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("difference: %s", d)
	}
}

// TestCompareFindsChangedRows: a row changed behind hubsnap's back (with
// its page checksums kept, so only the comparison can see it) is found,
// and the table it belongs to named.
func TestCompareFindsChangedRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	a := openStoreAt(t, path)
	put(t, a, sampleSnapshot(), true)
	b := openStore(t)
	put(t, b, sampleSnapshot(), true)

	db, err := sql.Open("sqlite", dsn(path, "vfs="+cksumvfs.Name))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE columns SET comment = 'changed' WHERE name = 'author_id'`,
		`DELETE FROM search WHERE rowid = (SELECT min(id) FROM tables WHERE name = 'users')`,
		`DELETE FROM logic_params WHERE (logic_id, position) IN (SELECT logic_id, position FROM logic_params LIMIT 1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	diffs, err := a.Compare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, d.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"release shop/rel_42, columns: the rows of table main.posts differ",
		"release shop/rel_42, search: ",
		"release shop/rel_42, logic_params: the rows of logic purchase_item differ",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("differences:\n%s\nwant one to say %q", all, want)
		}
	}
}

// TestCompareMeetsDamage: a damaged page read while comparing is an
// error: ErrCorrupt.
func TestCompareMeetsDamage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	a := openStoreAt(t, path)
	put(t, a, sampleSnapshot(), true)
	a.Close()
	flipByte(t, path, columnsPage(t, path, "author_id"), 0x01)
	a = openStoreAt(t, path)
	b := openStore(t)
	put(t, b, sampleSnapshot(), true)
	if _, err := a.Compare(ctx, b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Compare of a damaged index: %v, want ErrCorrupt", err)
	}
	bad, pages, err := a.CheckPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0].Btree != "columns" {
		t.Errorf("CheckPages: %d pages, bad %+v; want one page of columns", pages, bad)
	}
}
