package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPageSumIsCksumvfs checks pageSum against a value computed by hand
// with the loop of SQLite's ext/misc/cksumvfs.c (cksmCompute).
func TestPageSumIsCksumvfs(t *testing.T) {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(i + 1)
	}
	// Words (little-endian): 0x04030201, 0x08070605, 0x0c0b0a09, 0x100f0e0d.
	var s1, s2 uint32
	s1 += 0x04030201 + s2
	s2 += 0x08070605 + s1
	s1 += 0x0c0b0a09 + s2
	s2 += 0x100f0e0d + s1
	if g1, g2 := pageSum(b); g1 != s1 || g2 != s2 {
		t.Errorf("pageSum = %#x, %#x; want %#x, %#x", g1, g2, s1, s2)
	}
	page := make([]byte, 512)
	copy(page, "some page")
	sealPage(page)
	if !pageSealed(page) {
		t.Error("a sealed page is not sealed")
	}
	page[100] ^= 1
	if pageSealed(page) {
		t.Error("a changed page is still sealed")
	}
}

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
	if got := pages[0][20]; got != checksumBytes {
		t.Fatalf("the header reserves %d bytes a page, want %d", got, checksumBytes)
	}
	if len(pages) < 10 {
		t.Fatalf("only %d pages", len(pages))
	}
	for i, p := range pages {
		if !pageSealed(p) {
			t.Errorf("page %d of %d has no valid checksum", i+1, len(pages))
		}
	}
}

// walFrames checks the write-ahead log at path as SQLite recovers it: its
// frames' running checksums, from the log header's. It returns the pages
// of the frames.
func walFrames(tb testing.TB, path string) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if len(data) < walHeaderSize {
		return nil
	}
	magic := binary.BigEndian.Uint32(data)
	if magic&^1 != 0x377f0682 {
		tb.Fatalf("log magic %#x", magic)
	}
	big := magic&1 == 1
	size := int(binary.BigEndian.Uint32(data[8:]))
	s1, s2 := walSum(0, 0, data[:24], big)
	if s1 != binary.BigEndian.Uint32(data[24:]) || s2 != binary.BigEndian.Uint32(data[28:]) {
		tb.Fatal("the log header's checksum is wrong")
	}
	var pages [][]byte
	for off := walHeaderSize; off+frameHeaderSize+size <= len(data); off += frameHeaderSize + size {
		h := data[off : off+frameHeaderSize]
		if !slicesEqual(h[8:16], data[16:24]) {
			break // a frame of an earlier generation of the log
		}
		page := data[off+frameHeaderSize : off+frameHeaderSize+size]
		s1, s2 = walSum(s1, s2, h[:8], big)
		s1, s2 = walSum(s1, s2, page, big)
		if s1 != binary.BigEndian.Uint32(h[16:]) || s2 != binary.BigEndian.Uint32(h[20:]) {
			tb.Fatalf("frame %d: the running checksum is wrong", len(pages)+1)
		}
		pages = append(pages, page)
	}
	return pages
}

func slicesEqual(a, b []byte) bool { return string(a) == string(b) }

// TestLogPagesHaveChecksums: pages written to the log are sealed, and the
// log's own running checksums still hold over them, so that SQLite
// recovers every frame of a log left by a process that died.
func TestLogPagesHaveChecksums(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	if err := s.Optimize(ctx); err != nil { // the log is folded in and emptied
		t.Fatal(err)
	}
	// Writes in several transactions, left in the log.
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "t", 200), false)
	put(t, s, smallSnapshot("shop", "rel_40", "dev", 40, "u", 50), false)
	pages := walFrames(t, path+"-wal")
	if len(pages) < 5 {
		t.Fatalf("the log holds %d frames", len(pages))
	}
	for i, p := range pages {
		if !pageSealed(p) {
			t.Errorf("the page of frame %d has no valid checksum", i+1)
		}
	}

	// A copy of the file and its log, as a process that died leaves them:
	// SQLite recovers the log, and the releases written to it are there.
	crash := filepath.Join(t.TempDir(), "index.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crash+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := openStoreAt(t, crash)
	for _, id := range []string{"rel_40", "rel_41", "rel_42"} {
		if _, err := c.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: id}); err != nil {
			t.Errorf("after recovery, release %s: %v", id, err)
		}
	}
	s.Close()
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
	pages := walFrames(t, path+"-wal")
	if len(pages) == 0 {
		t.Fatal("the log is empty")
	}
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

// TestChecksumVerificationPragma: a connection can turn its checks off
// (as a repair does) and on again; and sqlite3 without the shim reads an
// index with checksums as any other.
func TestChecksumVerificationPragma(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	s.Close()
	flipByte(t, path, columnsPage(t, path, "author_id"), 0x01)

	db, err := sql.Open("sqlite", dsn(path, "vfs="+checksumVFSName+"&mode=ro"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	pragma := func(q string) string {
		t.Helper()
		var v string
		if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	count := func() error {
		var n int
		return db.QueryRowContext(ctx, "SELECT count(*) FROM columns WHERE json LIKE '%author%'").Scan(&n)
	}
	if got := pragma("PRAGMA checksum_verification"); got != "1" {
		t.Errorf("checksum_verification = %s, want 1", got)
	}
	if err := count(); err == nil || !strings.Contains(err.Error(), "I/O") || !Damaged(err) {
		t.Errorf("a read of the damaged page: %v, want a disk I/O error that Damaged knows", err)
	}
	if Damaged(errors.New("read index: disk I/O error")) || Damaged(nil) {
		t.Error("Damaged takes another error for damage")
	}
	if got := pragma("PRAGMA checksum_verification = OFF"); got != "0" {
		t.Errorf("checksum_verification = OFF answers %s, want 0", got)
	}
	if err := count(); err != nil {
		t.Errorf("with the checks off, a read of the damaged page: %v", err)
	}
	if got := pragma("PRAGMA checksum_verification = ON"); got != "1" {
		t.Errorf("checksum_verification = ON answers %s, want 1", got)
	}

	plain, err := sql.Open("sqlite", dsn(path, "mode=ro")) // like a person's sqlite3
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var n int
	if err := plain.QueryRowContext(ctx, "SELECT count(*) FROM tables").Scan(&n); err != nil || n == 0 {
		t.Errorf("sqlite3 without the shim: %d tables, %v", n, err)
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

// BenchmarkPageSum is the checksum of one 16 KiB page: what a page read
// from the disk, or written, costs more.
func BenchmarkPageSum(b *testing.B) {
	page := make([]byte, pageSize)
	for i := range page {
		page[i] = byte(i * 7)
	}
	b.SetBytes(pageSize)
	for b.Loop() {
		if pageSealed(page) {
			b.Fatal("sealed")
		}
	}
}
