// Package cksumvfs is the SQLite VFS that keeps a checksum in every page
// of the index (docs/index.md, "Page checksums"): a Go port of SQLite's
// ext/misc/cksumvfs.c over modernc's SQLite, and the one place in hubsnap
// that needs package unsafe. Every page keeps its last 8 bytes for a
// checksum of the rest: SQLite's "reserved bytes", set to 8 when a
// database is made through the VFS, which SQLite itself never touches.
// The checksum is cksumvfs.c's: two 32-bit running sums over the page's
// little-endian 32-bit words, written little-endian. It is computed on
// every page written to the database or its log and checked on every page
// read from either, so a damaged page is an error (SQLITE_IOERR_DATA)
// where it is read, never an answer.
//
// Register installs it once per process; a DSN names it (vfs=hubsnap,
// Name). Package store opens every index through it.
package cksumvfs

import (
	"fmt"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The VFS shim that keeps page checksums, registered as "hubsnap" and
// named in every DSN of the index (vfs=hubsnap). It sits on the default
// VFS ("unix") and wraps two kinds of files; every other file (temp files,
// a rollback journal) is the default VFS's own.
//
//   - The database file. A page read whole is checked against its last 8
//     bytes (SQLITE_IOERR_DATA when they differ); a page written gets them
//     computed. Both happen only in a file whose header says 8 reserved
//     bytes (offset 20), as every index made by this hubsnap does: an
//     older index is read as it is, and rebuilt (see store.Open).
//   - The write-ahead log. A page is written to the log behind a 24-byte
//     frame header whose running checksum (SQLite's own, checked when
//     the log is recovered) covers the page; the shim seals the page, then
//     writes the frame's running checksum again over the sealed page. A
//     page read from the log is checked like one read from the file.
//
// Once a file has shown its checksums, it keeps them: a later read of a
// header that says otherwise (a flipped byte 20) fails its own checksum
// instead of turning the checks off. PRAGMA checksum_verification (as in
// cksumvfs) tells whether a connection checks pages, and turns that off
// and on for the connection, as a repair does to overwrite damaged pages.
//
// The functions below are called by SQLite through C-style function
// pointers: each is a top-level function (cFuncPointer), and the memory
// they touch is SQLite's (libc), never Go's, except the two tables
// (checksumVFS, checksumMethods), which are package variables and never
// move.

// Name is the name of the shim: vfs=hubsnap in a DSN.
const Name = "hubsnap"

// registration makes Register run once in the process, and keeps why it
// failed.
var registration struct {
	sync.Once
	err error
}

var (
	checksumVFS     sqlite3.Tsqlite3_vfs        // the shim
	checksumMethods sqlite3.Tsqlite3_io_methods // of the files it wraps
	baseVFS         uintptr                     // the default VFS it wraps
)

// The kinds of file the shim wraps.
const (
	fileDB  = 1 // the database file
	fileWAL = 2 // its write-ahead log
)

// checkedFile is the head of a file the shim wraps; the default VFS's own
// file follows it, at checkedFileSize.
type checkedFile struct {
	base    sqlite3.Tsqlite3_file // its methods: checksumMethods
	kind    int32                 // fileDB or fileWAL
	compute int32                 // 1: pages get checksums (8 reserved bytes)
	verify  int32                 // 1: pages read are checked
	bigEnd  int32                 // WAL: 1 when the log's running checksum reads big-endian words
	db      uintptr               // WAL: the database file's checkedFile, or 0
	name    uintptr               // the file's name (SQLite's, C memory)
	hdrOff  int64                 // WAL: where the last frame header was written, or -1
	hdr     [24]byte              // WAL: that header
	magicOK int32                 // WAL: bigEnd was read from the log's header
}

// checkedFileSize is the size of checkedFile, rounded up to 8 bytes.
var checkedFileSize = (unsafe.Sizeof(checkedFile{}) + 7) &^ 7

// ptr turns an address of SQLite's memory into a pointer. The memory is
// libc's, outside the Go heap, so the garbage collector has nothing to
// keep or move.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// mem returns n bytes of SQLite's memory at p.
func mem(p uintptr, n int32) []byte { return unsafe.Slice((*byte)(ptr(p)), n) }

func fileOf(p uintptr) *checkedFile { return (*checkedFile)(ptr(p)) }

// sub is the default VFS's file behind p.
func sub(p uintptr) uintptr { return p + checkedFileSize }

// methodsOf is the method table of file p.
func methodsOf(p uintptr) *sqlite3.Tsqlite3_io_methods {
	return (*sqlite3.Tsqlite3_io_methods)(ptr((*sqlite3.Tsqlite3_file)(ptr(p)).FpMethods))
}

// cFuncPointer is a Go function as SQLite holds a function pointer, as
// modernc.org/sqlite does it: the address of the function's value, which
// lives in read-only data. f must be a top-level function.
func cFuncPointer[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}

// goFunc is the Go function behind a function pointer of SQLite.
func goFunc[T any](fp *uintptr) T { return *(*T)(unsafe.Pointer(fp)) }

// Register registers the shim over the default VFS, and an automatic
// extension that gives a new database opened through it its 8 reserved
// bytes. It runs once in the process; later calls return the first one's
// error. Registering initializes SQLite: whatever must precede SQLite's
// first use (store's lookaside size) must precede it.
func Register() error {
	registration.Do(func() { registration.err = register() })
	return registration.err
}

func register() error {
	tls := libc.NewTLS()
	defer tls.Close()
	baseVFS = sqlite3.Xsqlite3_vfs_find(tls, 0)
	if baseVFS == 0 {
		return fmt.Errorf("register the checksum VFS: SQLite has no default VFS")
	}
	base := (*sqlite3.Tsqlite3_vfs)(ptr(baseVFS))
	// The default VFS's methods other than xOpen are used as they are:
	// none reads its VFS argument beyond mxPathname and pAppData, which
	// the shim copies.
	checksumVFS = *base
	checksumVFS.FpNext = 0
	checksumVFS.FszOsFile = base.FszOsFile + int32(checkedFileSize)
	name, err := libc.CString(Name) // kept for the life of the process
	if err != nil {
		return fmt.Errorf("register the checksum VFS: %w", err)
	}
	checksumVFS.FzName = name
	checksumVFS.FxOpen = cFuncPointer(ckOpen)

	m := &checksumMethods
	m.FiVersion = 3
	m.FxClose = cFuncPointer(ckClose)
	m.FxRead = cFuncPointer(ckRead)
	m.FxWrite = cFuncPointer(ckWrite)
	m.FxTruncate = cFuncPointer(ckTruncate)
	m.FxSync = cFuncPointer(ckSync)
	m.FxFileSize = cFuncPointer(ckFileSize)
	m.FxLock = cFuncPointer(ckLock)
	m.FxUnlock = cFuncPointer(ckUnlock)
	m.FxCheckReservedLock = cFuncPointer(ckCheckReservedLock)
	m.FxFileControl = cFuncPointer(ckFileControl)
	m.FxSectorSize = cFuncPointer(ckSectorSize)
	m.FxDeviceCharacteristics = cFuncPointer(ckDeviceCharacteristics)
	m.FxShmMap = cFuncPointer(ckShmMap)
	m.FxShmLock = cFuncPointer(ckShmLock)
	m.FxShmBarrier = cFuncPointer(ckShmBarrier)
	m.FxShmUnmap = cFuncPointer(ckShmUnmap)
	m.FxFetch = cFuncPointer(ckFetch)
	m.FxUnfetch = cFuncPointer(ckUnfetch)

	if rc := sqlite3.Xsqlite3_vfs_register(tls, uintptr(unsafe.Pointer(&checksumVFS)), 0); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("register the checksum VFS: result code %d", rc)
	}
	if rc := sqlite3.Xsqlite3_auto_extension(tls, cFuncPointer(reserveChecksumBytes)); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("register the checksum VFS: automatic extension: result code %d", rc)
	}
	return nil
}

// reserveChecksumBytes runs when any connection opens. For a database
// opened through the shim, it asks for 8 reserved bytes a page: SQLite
// takes them only for a database that has no page yet (a new index), and
// keeps an existing database as it is.
func reserveChecksumBytes(tls *libc.TLS, db, pzErrMsg, pThunk uintptr) int32 {
	p := tls.Alloc(8)
	defer tls.Free(8)
	*(*uintptr)(ptr(p)) = 0
	if sqlite3.Xsqlite3_file_control(tls, db, 0, sqlite3.SQLITE_FCNTL_VFS_POINTER, p) != sqlite3.SQLITE_OK ||
		*(*uintptr)(ptr(p)) != uintptr(unsafe.Pointer(&checksumVFS)) {
		return sqlite3.SQLITE_OK
	}
	*(*int32)(ptr(p)) = ReservedBytes
	sqlite3.Xsqlite3_file_control(tls, db, 0, sqlite3.SQLITE_FCNTL_RESERVE_BYTES, p) // refused by a database that has pages
	return sqlite3.SQLITE_OK
}

// ckOpen opens a file through the default VFS, wrapping a database file
// or a write-ahead log.
func ckOpen(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	open := goFunc[func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32](
		&(*sqlite3.Tsqlite3_vfs)(ptr(baseVFS)).FxOpen)
	var kind int32
	switch {
	case flags&sqlite3.SQLITE_OPEN_MAIN_DB != 0:
		kind = fileDB
	case flags&sqlite3.SQLITE_OPEN_WAL != 0:
		kind = fileWAL
	default:
		return open(tls, baseVFS, zName, pFile, flags, pOutFlags)
	}
	f := fileOf(pFile)
	*f = checkedFile{kind: kind, name: zName, hdrOff: -1}
	f.base.FpMethods = uintptr(unsafe.Pointer(&checksumMethods))
	if rc := open(tls, baseVFS, zName, sub(pFile), flags, pOutFlags); rc != sqlite3.SQLITE_OK {
		f.base.FpMethods = 0
		return rc
	}
	switch kind {
	case fileDB:
		f.readHeader(tls, pFile)
	case fileWAL:
		if db := sqlite3.Xsqlite3_database_file_object(tls, zName); db != 0 &&
			(*sqlite3.Tsqlite3_file)(ptr(db)).FpMethods == uintptr(unsafe.Pointer(&checksumMethods)) {
			f.db = db
		}
	}
	return sqlite3.SQLITE_OK
}

// readHeader learns from a database file's header whether its pages have
// checksums. A new, empty file learns it when its first page is written.
func (f *checkedFile) readHeader(tls *libc.TLS, pFile uintptr) {
	s := sub(pFile)
	m := methodsOf(s)
	size := tls.Alloc(8)
	defer tls.Free(8)
	if goFunc[func(*libc.TLS, uintptr, uintptr) int32](&m.FxFileSize)(tls, s, size) != sqlite3.SQLITE_OK ||
		*(*int64)(ptr(size)) < 100 {
		return
	}
	buf := tls.Alloc(100)
	defer tls.Free(100)
	if goFunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](&m.FxRead)(tls, s, buf, 100, 0) != sqlite3.SQLITE_OK {
		return
	}
	if h := mem(buf, 100); string(h[:16]) == dbHeader && h[20] == ReservedBytes {
		f.compute, f.verify = 1, 1
	}
}

// flags are the checks of a file, or nil: a log's are its database's.
func (f *checkedFile) flags() *checkedFile {
	if f.kind == fileWAL {
		if f.db == 0 {
			return nil
		}
		return fileOf(f.db)
	}
	return f
}

// sawHeader notes the header of page 1, read or written. A write says
// what the file is; a read only turns checksums on, never off (see the
// top of this file).
func (f *checkedFile) sawHeader(page []byte, write bool) {
	g := f.flags()
	if g == nil || len(page) < 100 || string(page[:16]) != dbHeader {
		return
	}
	has := page[20] == ReservedBytes
	switch {
	case has && g.compute == 0:
		g.compute, g.verify = 1, 1
	case !has && g.compute == 1 && write:
		g.compute, g.verify = 0, 0
	}
}
