package store

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// Page checksums (docs/index.md, "Page checksums"). Every page of the
// index keeps its last 8 bytes for a checksum of the rest: SQLite's
// "reserved bytes", set to 8 when the index is made, which SQLite itself
// never touches. The checksum is the one of SQLite's own
// ext/misc/cksumvfs.c: two 32-bit running sums over the page's
// little-endian 32-bit words, written little-endian. The VFS shim in
// checksum_vfs.go computes it on every page written to the index or its
// log and checks it on every page read from either, so a damaged page is
// an error (SQLITE_IOERR_DATA) where it is read, never an answer.

// checksumBytes is how many bytes at the end of every page hold its
// checksum: the index's reserved bytes.
const checksumBytes = 8

// pageSum returns the checksum of b, whose length is a multiple of 8. It
// reads SQLite's memory, never shared with Go: the race detector has
// nothing to watch in it (go:norace), and would make every page read and
// written many times slower under -race.
//
//go:norace
func pageSum(b []byte) (s1, s2 uint32) {
	for len(b) >= 8 {
		s1 += binary.LittleEndian.Uint32(b) + s2
		s2 += binary.LittleEndian.Uint32(b[4:]) + s1
		b = b[8:]
	}
	return s1, s2
}

// sealPage writes the checksum of page into its last 8 bytes.
func sealPage(page []byte) {
	n := len(page) - checksumBytes
	s1, s2 := pageSum(page[:n])
	binary.LittleEndian.PutUint32(page[n:], s1)
	binary.LittleEndian.PutUint32(page[n+4:], s2)
}

// pageSealed reports whether the last 8 bytes of page hold the checksum
// of the rest.
func pageSealed(page []byte) bool {
	n := len(page) - checksumBytes
	s1, s2 := pageSum(page[:n])
	return binary.LittleEndian.Uint32(page[n:]) == s1 && binary.LittleEndian.Uint32(page[n+4:]) == s2
}

// walSum continues the running checksum of SQLite's write-ahead log
// (wal.c, walChecksumBytes) over b, whose words are big-endian when
// bigEndian is set. Not watched by the race detector, as pageSum.
//
//go:norace
func walSum(s1, s2 uint32, b []byte, bigEndian bool) (uint32, uint32) {
	if bigEndian {
		for len(b) >= 8 {
			s1 += binary.BigEndian.Uint32(b) + s2
			s2 += binary.BigEndian.Uint32(b[4:]) + s1
			b = b[8:]
		}
		return s1, s2
	}
	for len(b) >= 8 {
		s1 += binary.LittleEndian.Uint32(b) + s2
		s2 += binary.LittleEndian.Uint32(b[4:]) + s1
		b = b[8:]
	}
	return s1, s2
}

// dbHeader is how every SQLite database file begins.
const dbHeader = "SQLite format 3\x00"

// fullPage reports whether a read or write of n bytes can be a whole
// page: a power of two from 512 to 65,536.
func fullPage(n int32) bool {
	return n >= 512 && n <= 65536 && n&(n-1) == 0
}

// ChecksumFault is a page that failed its checksum when it was read.
type ChecksumFault struct {
	File   string    // the index or its log
	Offset int64     // of the page in File
	At     time.Time // when it was read
}

func (f ChecksumFault) String() string {
	return fmt.Sprintf("the page at byte %d of %s", f.Offset, f.File)
}

// faults remembers the last checksum fault of each file, so that the
// error of the read that met it can say which page it was.
var faults struct {
	sync.Mutex
	last map[string]ChecksumFault
}

// noteFault records a checksum fault.
func noteFault(file string, off int64) {
	faults.Lock()
	defer faults.Unlock()
	if faults.last == nil {
		faults.last = map[string]ChecksumFault{}
	}
	faults.last[file] = ChecksumFault{File: file, Offset: off, At: time.Now()}
}

// faultWindow is how recent a checksum fault must be for the error of a
// failed read to name it: the read that met it has just ended.
const faultWindow = 5 * time.Second

// lastFault returns the last checksum fault met in the index at path or
// its log since the given time.
func lastFault(path string, since time.Time) (ChecksumFault, bool) {
	faults.Lock()
	defer faults.Unlock()
	var found ChecksumFault
	for _, f := range []string{path, path + "-wal"} {
		if x, ok := faults.last[f]; ok && !x.At.Before(since) && x.At.After(found.At) {
			found = x
		}
	}
	return found, !found.At.IsZero()
}
