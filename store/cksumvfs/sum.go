package cksumvfs

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// The checksum of a page, and the faults met reading pages (vfs.go says
// where they are computed and checked).

// ReservedBytes is how many bytes at the end of every page hold its
// checksum: the database's reserved bytes.
const ReservedBytes = 8

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
	n := len(page) - ReservedBytes
	s1, s2 := pageSum(page[:n])
	binary.LittleEndian.PutUint32(page[n:], s1)
	binary.LittleEndian.PutUint32(page[n+4:], s2)
}

// Sealed reports whether the last 8 bytes of page hold the checksum of
// the rest.
func Sealed(page []byte) bool {
	n := len(page) - ReservedBytes
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

// Fault is a page that failed its checksum when it was read.
type Fault struct {
	File   string    // the index or its log
	Offset int64     // of the page in File
	At     time.Time // when it was read
}

// String names the page: its offset and file.
func (f Fault) String() string {
	return fmt.Sprintf("the page at byte %d of %s", f.Offset, f.File)
}

// faults remembers the last checksum fault of each file, so that the
// error of the read that met it can say which page it was.
var faults struct {
	sync.Mutex
	last map[string]Fault
}

// noteFault records a checksum fault.
func noteFault(file string, off int64) {
	faults.Lock()
	defer faults.Unlock()
	if faults.last == nil {
		faults.last = map[string]Fault{}
	}
	faults.last[file] = Fault{File: file, Offset: off, At: time.Now()}
}

// faultWindow is how recent a checksum fault must be for the error of a
// failed read to name it: the read that met it has just ended.
const faultWindow = 5 * time.Second

// RecentFault returns the last checksum fault met in the database at path
// or its log in the last few seconds: the page that made a read that has
// just failed fail.
func RecentFault(path string) (Fault, bool) {
	since := time.Now().Add(-faultWindow)
	faults.Lock()
	defer faults.Unlock()
	var found Fault
	for _, f := range []string{path, path + "-wal"} {
		if x, ok := faults.last[f]; ok && !x.At.Before(since) && x.At.After(found.At) {
			found = x
		}
	}
	return found, !found.At.IsZero()
}
