package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/migrations"
	"github.com/hubsnap/hubsnap/store"
)

// flipIndexByte XORs the first byte of the first occurrence of needle in
// the index file at path, in place, keeping its size and time: the stamp
// still matches, as after bit rot.
func flipIndexByte(tb testing.TB, path, needle string) {
	tb.Helper()
	info, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	at := strings.Index(string(data), needle)
	if at < 0 {
		tb.Fatalf("the index holds no %q", needle)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{data[at] ^ 0x20}, int64(at)); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		tb.Fatal(err)
	}
}

// sameFile is the file at path as it is now, to compare with os.SameFile:
// a repair must copy into the index's own file, not put another in its
// place.
func sameFile(tb testing.TB, path string) os.FileInfo {
	tb.Helper()
	info, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return info
}

// TestRepairInPlace: a page damaged in place is an error where it is read
// (never a changed answer); Repair rebuilds the index from the release
// files and copies it into the same file, and another open Cache (another
// process, as far as the index is concerned) then reads the right answer
// without reopening anything.
func TestRepairInPlace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	path := filepath.Join(dir, "index.db")
	c := openCache(t, dir)
	want, err := c.Store().TableJSON(ctx, shopDev, "main", "posts")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	before := sameFile(t, path)
	flipIndexByte(t, path, `{"name":"author_id"`)

	serving := openCache(t, dir) // as hubsnap serve holds it
	other := openCache(t, dir)
	if _, err := other.Store().TableJSON(ctx, shopDev, "main", "posts"); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("a read of the damaged page: %v, want ErrCorrupt", err)
	}
	if err := serving.Repair(ctx); err != nil {
		t.Fatalf("Repair: %v", err)
	}
	for name, c := range map[string]*Cache{"the repairing cache": serving, "another cache": other} {
		got, err := c.Store().TableJSON(ctx, shopDev, "main", "posts")
		if err != nil || string(got) != string(want) {
			t.Errorf("%s after the repair: %s, %v; want %s", name, got, err, want)
		}
	}
	if !os.SameFile(sameFile(t, path), before) {
		t.Error("the repair replaced the file")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".index.db.part-*")); len(leftovers) > 0 {
		t.Errorf("the repair left %v", leftovers)
	}
}

// TestOpenRepairsADamagedIndexInPlace: an index that cannot be opened
// (here, a damaged page found by the check at open: the stamp is gone) is
// rebuilt and copied into the same file.
func TestOpenRepairsADamagedIndexInPlace(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	path := filepath.Join(dir, "index.db")
	before := sameFile(t, path)
	flipIndexByte(t, path, `{"name":"author_id"`)
	os.Remove(path + ".checked")
	c := openCache(t, dir)
	if !os.SameFile(sameFile(t, path), before) {
		t.Error("the repair at open replaced the file")
	}
	if _, err := readTable(t, c.Store(), shopDev, "main", "posts"); err != nil {
		t.Errorf("after the repair at open: %v", err)
	}
}

// TestOldIndexRebuiltWithChecksums: an index made before page checksums
// (no reserved bytes, 16 KiB pages or, older still, 4 KiB) is rebuilt by
// its first writer, in place, and has checksums after.
func TestOldIndexRebuiltWithChecksums(t *testing.T) {
	for _, size := range []int{16384, 4096} {
		t.Run(fmt.Sprint(size), func(t *testing.T) { testOldIndexRebuilt(t, size) })
	}
}

func testOldIndexRebuilt(t *testing.T, size int) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	path := filepath.Join(dir, "index.db")
	for _, suffix := range []string{"", "-wal", "-shm", ".checked"} {
		os.Remove(path + suffix)
	}
	// An index of the newest schema as the hubsnap before checksums made
	// it: WAL mode, no reserved bytes (the default VFS).
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	stmts := []string{fmt.Sprintf("PRAGMA page_size = %d", size), "PRAGMA journal_mode = WAL", `CREATE TABLE schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, string(body), fmt.Sprintf("INSERT INTO schema_migrations (version, name) VALUES (%d, '%s')", i+1, name))
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if data[20] != 0 {
		t.Fatalf("the old index reserves %d bytes", data[20])
	}
	before := sameFile(t, path)
	c := openCache(t, dir)
	if _, err := readTable(t, c.Store(), shopDev, "main", "posts"); err != nil {
		t.Errorf("after the rebuild: %v", err)
	}
	c.Close()
	if !os.SameFile(sameFile(t, path), before) {
		t.Error("the rebuild replaced the file")
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if data[20] != 8 {
		t.Errorf("after the rebuild the index reserves %d bytes, want 8", data[20])
	}
	if got := int(data[16])<<8 | int(data[17]); got != size {
		t.Errorf("after the rebuild the pages hold %d bytes, want %d as before", got, size)
	}
}
