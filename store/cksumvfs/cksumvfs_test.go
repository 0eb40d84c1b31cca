package cksumvfs

import (
	"context"
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// The VFS on its own, over plain database/sql connections: what package
// store makes of it (an index, ErrCorrupt, the repair) is tested there.

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
	if !Sealed(page) {
		t.Error("a sealed page is not sealed")
	}
	page[100] ^= 1
	if Sealed(page) {
		t.Error("a changed page is still sealed")
	}
}

// testPageSize is the page size of the test databases: SQLite's default.
const testPageSize = 4096

// openDB opens the database at path through the VFS, in WAL mode without
// automatic checkpoints, with extra parameters; closed when the test ends.
func openDB(tb testing.TB, path, extra string) *sql.DB {
	tb.Helper()
	if err := Register(); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?vfs="+Name+extra)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return db
}

// exec runs statements on db.
func exec(tb testing.TB, db *sql.DB, stmts ...string) {
	tb.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// newDatabase makes the table t of the database at path, with n rows of
// text that spans pages, and closes it: its pages are in the file.
func newDatabase(tb testing.TB, path string, n int) {
	tb.Helper()
	db := openDB(tb, path, "&_pragma=journal_mode(WAL)")
	exec(tb, db, "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
	insertRows(tb, db, 0, n)
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}

// insertRows inserts rows from..to-1 into t, one transaction.
func insertRows(tb testing.TB, db *sql.DB, from, to int) {
	tb.Helper()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	for i := from; i < to; i++ {
		if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", i, "row "+strings.Repeat("x", i%500)+" needle"); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// rawPages reads the database file at path and returns its pages.
func rawPages(tb testing.TB, path string) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if len(data) < 100 {
		tb.Fatalf("a database of %d bytes has no header", len(data))
	}
	size := int(binary.BigEndian.Uint16(data[16:]))
	if size == 1 {
		size = 65536
	}
	var pages [][]byte
	for off := 0; off+size <= len(data); off += size {
		pages = append(pages, data[off:off+size])
	}
	return pages
}

// TestNewDatabaseHasPageChecksums: a database made through the VFS
// reserves 8 bytes a page, and every page in the file holds its checksum
// there.
func TestNewDatabaseHasPageChecksums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	newDatabase(t, path, 300)
	pages := rawPages(t, path)
	if got := len(pages[0]); got != testPageSize {
		t.Errorf("page size %d, want %d", got, testPageSize)
	}
	if got := pages[0][20]; got != ReservedBytes {
		t.Fatalf("the header reserves %d bytes a page, want %d", got, ReservedBytes)
	}
	if len(pages) < 10 {
		t.Fatalf("only %d pages", len(pages))
	}
	for i, p := range pages {
		if !Sealed(p) {
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
		if string(h[8:16]) != string(data[16:24]) {
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

// TestLogPagesHaveChecksums: pages written to the log are sealed, and the
// log's own running checksums still hold over them, so that SQLite
// recovers every frame of a log left by a process that died.
func TestLogPagesHaveChecksums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	newDatabase(t, path, 100) // closed: the log is folded in
	db := openDB(t, path, "&_pragma=wal_autocheckpoint(0)")
	insertRows(t, db, 100, 300) // writes in several transactions, left in the log
	insertRows(t, db, 300, 350)
	pages := walFrames(t, path+"-wal")
	if len(pages) < 5 {
		t.Fatalf("the log holds %d frames", len(pages))
	}
	for i, p := range pages {
		if !Sealed(p) {
			t.Errorf("the page of frame %d has no valid checksum", i+1)
		}
	}

	// A copy of the file and its log, as a process that died leaves them:
	// SQLite recovers the log, and the rows written to it are there.
	crash := filepath.Join(t.TempDir(), "test.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crash+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := openDB(t, crash, "").QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 350 {
		t.Errorf("after recovery: %d rows, %v; want 350", n, err)
	}
}

// flipByte XORs the byte at off of the file at path with mask.
func flipByte(tb testing.TB, path string, off int64, mask byte) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		tb.Fatal(err)
	}
	b[0] ^= mask
	if _, err := f.WriteAt(b, off); err != nil {
		tb.Fatal(err)
	}
}

// damageRow flips a byte of the text of a row in the database at path.
func damageRow(tb testing.TB, path string) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	at := strings.Index(string(data), "needle")
	if at < 0 {
		tb.Fatal("no row in the file")
	}
	flipByte(tb, path, int64(at), 0x01)
}

// countRows reads every row of t.
func countRows(db *sql.DB) error {
	var n int
	return db.QueryRow("SELECT count(*) FROM t WHERE body LIKE '%needle%'").Scan(&n)
}

// TestChecksumVerificationPragma: a damaged page is an I/O error where it
// is read, and its fault is remembered; a connection can turn its checks
// off (as a repair does) and on again; and sqlite3 without the VFS reads
// a database with checksums as any other.
func TestChecksumVerificationPragma(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	newDatabase(t, path, 300)
	damageRow(t, path)

	db := openDB(t, path, "&mode=ro")
	pragma := func(q string) string {
		t.Helper()
		var v string
		if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	if got := pragma("PRAGMA checksum_verification"); got != "1" {
		t.Errorf("checksum_verification = %s, want 1", got)
	}
	if err := countRows(db); err == nil || !strings.Contains(err.Error(), "I/O") {
		t.Errorf("a read of the damaged page: %v, want a disk I/O error", err)
	}
	if f, ok := RecentFault(path); !ok || f.File != path || f.Offset%testPageSize != 0 {
		t.Errorf("RecentFault = %v, %v; want a page of %s", f, ok, path)
	}
	if got := pragma("PRAGMA checksum_verification = OFF"); got != "0" {
		t.Errorf("checksum_verification = OFF answers %s, want 0", got)
	}
	if err := countRows(db); err != nil {
		t.Errorf("with the checks off, a read of the damaged page: %v", err)
	}
	if got := pragma("PRAGMA checksum_verification = ON"); got != "1" {
		t.Errorf("checksum_verification = ON answers %s, want 1", got)
	}

	plain, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro") // like a person's sqlite3
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var n int
	if err := plain.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 300 {
		t.Errorf("sqlite3 without the VFS: %d rows, %v", n, err)
	}
}

// TestFlippedReserveByteIsDamage: a flipped byte 20 of the header (the
// reserved bytes) does not turn the checks off: page 1 fails its
// checksum.
func TestFlippedReserveByteIsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	newDatabase(t, path, 100)
	for _, mask := range []byte{0x08, 0x01, 0x10} { // 8 -> 0, 9, 24
		t.Run("", func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "test.db")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			flipByte(t, p, 20, mask)
			if err := countRows(openDB(t, p, "&mode=ro")); err == nil {
				t.Errorf("byte 20 ^ %#x: the rows read, want an error", mask)
			}
		})
	}
}

// BenchmarkPageSum is the checksum of one 16 KiB page: what a page read
// from the disk, or written, costs more.
func BenchmarkPageSum(b *testing.B) {
	page := make([]byte, 16384)
	for i := range page {
		page[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if Sealed(page) {
			b.Fatal("sealed")
		}
	}
}
