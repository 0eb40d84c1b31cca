package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// TestRestoreRepairsInPlace: a damaged index is repaired by copying a
// rebuilt one into it, while another Store (another process, as far as the
// index is concerned) keeps it open: that Store reads the repaired index,
// without reopening it.
func TestRestoreRepairsInPlace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "t", 300), false)
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := s.TableJSON(ctx, shopDev, "main", "posts")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	flipByte(t, path, columnsPage(t, path, "author_id"), 0x01)

	live := openStoreAt(t, path)
	other := openStoreAt(t, path)
	if _, err := other.TableJSON(ctx, shopDev, "main", "posts"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("before the repair: %v, want ErrCorrupt", err)
	}

	tmp := filepath.Join(dir, ".rebuilt.db")
	size, err := live.PageSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := Create(ctx, tmp, size)
	if err != nil {
		t.Fatal(err)
	}
	put(t, rebuilt, smallSnapshot("shop", "rel_41", "dev", 41, "t", 300), false)
	put(t, rebuilt, sampleSnapshot(), true)
	if err := rebuilt.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	rebuilt.Close()
	if err := live.Restore(ctx, tmp); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	RemoveIndex(tmp)
	for name, st := range map[string]*Store{"the store that restored": live, "another store": other} {
		got, err := st.TableJSON(ctx, shopDev, "main", "posts")
		if err != nil || string(got) != string(want) {
			t.Errorf("%s after the repair: %s, %v; want %s", name, got, err, want)
		}
	}
	live.Close()
	other.Close()
	_, pages := rawPages(t, path)
	for i, p := range pages {
		if !cksumvfs.Sealed(p) {
			t.Errorf("after the repair, page %d has no valid checksum", i+1)
		}
	}
	s = openStoreAt(t, path)
	if got, err := s.TableJSON(ctx, shopDev, "main", "posts"); err != nil || string(got) != string(want) {
		t.Errorf("reopened after the repair: %s, %v", got, err)
	}
}
