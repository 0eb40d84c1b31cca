package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// rawPages reads the index file at path and returns its page size and
// pages.
func rawPages(tb testing.TB, path string) (int, [][]byte) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	size := headerPageSize(tb, data)
	var pages [][]byte
	for off := 0; off+size <= len(data); off += size {
		pages = append(pages, data[off:off+size])
	}
	return size, pages
}

// TestNewIndexHasPageChecksums: a new index reserves 8 bytes a page, and
// every page in the file holds its checksum there.
func TestNewIndexHasPageChecksums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "t", 300), false)
	if err := s.Optimize(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	size, pages := rawPages(t, path)
	if size != pageSize {
		t.Errorf("page size %d, want %d", size, pageSize)
	}
	if got := pages[0][20]; got != cksumvfs.ReservedBytes {
		t.Fatalf("the header reserves %d bytes a page, want %d", got, cksumvfs.ReservedBytes)
	}
	if len(pages) < 10 {
		t.Fatalf("only %d pages", len(pages))
	}
	for i, p := range pages {
		if !cksumvfs.Sealed(p) {
			t.Errorf("page %d of %d has no valid checksum", i+1, len(pages))
		}
	}
}

// flipByte XORs the byte at off of the file at path with mask, keeping
// its modification time (and so the stamp).
func flipByte(tb testing.TB, path string, off int64, mask byte) {
	tb.Helper()
	info, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		tb.Fatal(err)
	}
	b[0] ^= mask
	if _, err := f.WriteAt(b, off); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		tb.Fatal(err)
	}
}

// tablePage returns the file offset of a leaf page of the index at path
// that holds the stored JSON of columns of the table named name.
func columnsPage(tb testing.TB, path, column string) int64 {
	tb.Helper()
	size, pages := rawPages(tb, path)
	for i, p := range pages {
		if j := strings.Index(string(p), `{"name":"`+column+`"`); j >= 0 {
			return int64(i*size + j + 10)
		}
	}
	tb.Fatalf("no page holds the column %s", column)
	return 0
}

// TestDamagedPageFailsItsChecksum: a byte flipped inside a stored answer,
// in place, with the file's size and time kept (the stamp still matches,
// so the open does not check the file), makes the read that meets it
// fail with ErrCorrupt, never a changed answer.
func TestDamagedPageFailsItsChecksum(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := s.TableJSON(ctx, shopDev, "main", "posts")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	flipByte(t, path, columnsPage(t, path, "author_id"), 0x01) // "author_id" -> "author_ie" or so

	s = openStoreAt(t, path)
	if s.checked {
		t.Fatal("the stamp did not match: the open checked the file")
	}
	got, err := s.TableJSON(ctx, shopDev, "main", "posts")
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("TableJSON after damage = %s, %v; want ErrCorrupt (undamaged: %s)", got, err, want)
	}
	if !strings.Contains(err.Error(), "checksum") {
		t.Errorf("error %q does not say a checksum failed", err)
	}
	if ErrorCode(err) != Internal {
		t.Errorf("code %s, want INTERNAL", ErrorCode(err))
	}
	if _, err := os.Stat(path + stampSuffix); err == nil {
		t.Error("the stamp is still there after a damaged page was met")
	}
}

// TestDamagedLogPageFailsItsChecksum: the same for a page read from the
// write-ahead log.
func TestDamagedLogPageFailsItsChecksum(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	w := openStoreAt(t, path)
	put(t, w, smallSnapshot("shop", "rel_41", "dev", 41, "t", 5), true)
	if err := w.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	put(t, w, sampleSnapshot(), true) // its pages stay in the log while w is open
	data, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(data), `{"name":"author_id"`)
	if at < 0 {
		t.Fatal("the log holds no column author_id")
	}
	flipByte(t, path+"-wal", int64(at+10), 0x01)

	r := openStoreAt(t, path) // a second hubsnap, reading the log afresh
	_, err = r.TableJSON(ctx, shopDev, "main", "posts")
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("TableJSON after damage to the log: %v, want ErrCorrupt", err)
	}
	w.Close()
}

// TestOldIndexWithoutChecksums: an index whose pages reserve no bytes (one
// made before page checksums) is ErrNoChecksums, which is ErrCorrupt: its
// first writer rebuilds it.
func TestOldIndexWithoutChecksums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sql.Open("sqlite", path) // the default VFS: no reserved bytes
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(context.Background(), path)
	if !errors.Is(err, ErrNoChecksums) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open of an index without checksums: %v, want ErrNoChecksums", err)
	}
}

// TestFlippedReserveByteIsDamage: a flipped byte 20 of the header (the
// reserved bytes) does not turn the checks off: page 1 fails its
// checksum.
func TestFlippedReserveByteIsDamage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	s.Close()
	for _, mask := range []byte{0x08, 0x01, 0x10} { // 8 -> 0, 9, 24
		t.Run("", func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "index.db")
			data, _ := os.ReadFile(path)
			os.WriteFile(p, data, 0o600)
			flipByte(t, p, 20, mask)
			st, err := Open(ctx, p)
			if err == nil {
				_, err = st.TableJSON(ctx, shopDev, "main", "posts")
				st.Close()
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("byte 20 ^ %#x: %v, want ErrCorrupt", mask, err)
			}
		})
	}
}

// TestDamagedKnowsAChecksumFailure: a read through the checksum VFS that
// meets a damaged page fails with a disk I/O error that Damaged knows for
// damage, even when it reaches the caller unclassified.
func TestDamagedKnowsAChecksumFailure(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	s.Close()
	flipByte(t, path, columnsPage(t, path, "author_id"), 0x01)

	db, err := sql.Open("sqlite", dsn(path, "vfs="+cksumvfs.Name+"&mode=ro"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM columns WHERE json LIKE '%author%'").Scan(&n)
	if err == nil || !strings.Contains(err.Error(), "I/O") || !Damaged(err) {
		t.Errorf("a read of the damaged page: %v, want a disk I/O error that Damaged knows", err)
	}
	if Damaged(errors.New("read index: disk I/O error")) || Damaged(nil) {
		t.Error("Damaged takes another error for damage")
	}
}

// TestConcurrentOpensOfANewIndex: processes that open a new index at once
// (here, Stores of one process, each with its own connections) find no
// damage where there is none. A connection that opened the file before it
// had a page reads page 1 first with SQLite's default page size, a read
// that is not a whole page of this index.
func TestConcurrentOpensOfANewIndex(t *testing.T) {
	ctx := context.Background()
	for range 5 {
		path := filepath.Join(t.TempDir(), "index.db")
		errs := make(chan error, 6)
		for i := range 6 {
			go func() {
				s, err := Open(ctx, path)
				if err == nil {
					snap := smallSnapshot("shop", "rel_"+strconv.Itoa(i), "dev", int64(i), "t", 20)
					err = s.PutRelease(ctx, snap, fileStateOf(snap), true, nil)
					if err == nil {
						_, err = s.TableJSON(ctx, shopDev, "main", "t_000")
					}
					s.Close()
				}
				errs <- err
			}()
		}
		for range 6 {
			if err := <-errs; err != nil && !strings.Contains(err.Error(), "busy") {
				t.Errorf("concurrent open of a new index: %v", err)
			}
		}
	}
}

// btreePage returns the first page of the b-tree named name in the index
// at path.
func btreePage(tb testing.TB, path, name string) int64 {
	tb.Helper()
	db, err := sql.Open("sqlite", dsn(path, "mode=ro"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var page int64
	if err := db.QueryRow("SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno LIMIT 1", name).Scan(&page); err != nil {
		tb.Fatalf("page of %s: %v", name, err)
	}
	return page
}

// TestOpenMeetsDamageWhilePreparing: preparing the read statements reads
// the full-text index's configuration; a damaged page there makes Open
// fail with ErrCorrupt (which indexer.Open repairs), not a plain error.
func TestOpenMeetsDamageWhilePreparing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	s.Close()
	page := btreePage(t, path, "search_config")
	flipByte(t, path, (page-1)*pageSize+100, 0x40)
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open with a damaged search_config page: %v, want ErrCorrupt", err)
	}
}
