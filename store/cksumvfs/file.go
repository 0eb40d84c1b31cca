package cksumvfs

import (
	"encoding/binary"
	"strings"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The methods of a file the checksum VFS wraps (vfs.go). Most
// pass the call to the default VFS's file behind it; xRead and xWrite
// check and seal pages, xFileControl answers PRAGMA checksum_verification.

// The signatures of the methods called on the file behind.
type (
	readWriteFn = func(*libc.TLS, uintptr, uintptr, int32, int64) int32
	fileIntFn   = func(*libc.TLS, uintptr, int32) int32
	filePtrFn   = func(*libc.TLS, uintptr, uintptr) int32
	fileFn      = func(*libc.TLS, uintptr) int32
)

// walHeaderSize and frameHeaderSize are the sizes of the write-ahead log's
// header and of a frame's header (wal.c).
const (
	walHeaderSize   = 32
	frameHeaderSize = 24
)

// framePage reports whether n bytes at off of a log are the page of a
// frame, as SQLite reads and writes them: after the log's header, each
// frame is a header and a page of n bytes.
func framePage(off int64, n int32) bool {
	return off >= walHeaderSize+frameHeaderSize && (off-walHeaderSize)%(int64(n)+frameHeaderSize) == frameHeaderSize
}

func ckClose(tls *libc.TLS, pFile uintptr) int32 {
	s := sub(pFile)
	return goFunc[fileFn](&methodsOf(s).FxClose)(tls, s)
}

func ckRead(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	s := sub(pFile)
	rc := goFunc[readWriteFn](&methodsOf(s).FxRead)(tls, s, zBuf, iAmt, iOfst)
	if rc != sqlite3.SQLITE_OK {
		return rc // a short read is a page past the end: zeros, no checksum
	}
	f := fileOf(pFile)
	buf := mem(zBuf, iAmt)
	switch {
	case f.kind == fileDB && iOfst == 0:
		f.sawHeader(buf, false)
	case f.kind == fileWAL && fullPage(iAmt) && framePage(iOfst, iAmt):
		f.sawHeader(buf, false)
	case f.kind == fileWAL:
		return rc // the log's header, a frame header, or a whole frame (recovery)
	}
	if g := f.flags(); g != nil && g.verify == 1 && fullPage(iAmt) && !wrongFirstPage(buf) && !Sealed(buf) {
		noteFault(libc.GoString(f.name), iOfst)
		return sqlite3.SQLITE_IOERR_DATA
	}
	return rc
}

// wrongFirstPage reports whether page is page 1 read with another size
// than its header gives. SQLite reads page 1 with the page size it
// assumed, 4,096 bytes for a connection that opened the file before it
// had a page, and reads it again with the size the header gives: only
// that read is a whole page to check. (A damaged page size in the header
// makes SQLite read page 1 with that size, which fails its check.)
func wrongFirstPage(page []byte) bool {
	if len(page) < 100 || string(page[:16]) != dbHeader {
		return false
	}
	size := int(binary.BigEndian.Uint16(page[16:]))
	if size == 1 {
		size = 65536
	}
	return size != len(page)
}

func ckWrite(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	f := fileOf(pFile)
	s := sub(pFile)
	write := goFunc[readWriteFn](&methodsOf(s).FxWrite)
	buf := mem(zBuf, iAmt)
	if f.kind == fileDB {
		if iOfst == 0 {
			f.sawHeader(buf, true)
		}
		if f.compute == 1 && fullPage(iAmt) {
			sealPage(buf)
		}
		return write(tls, s, zBuf, iAmt, iOfst)
	}
	switch {
	case iOfst == 0 && iAmt == walHeaderSize:
		f.bigEnd, f.magicOK, f.hdrOff = int32(buf[3]&1), 1, -1
	case iOfst >= walHeaderSize && iAmt == frameHeaderSize:
		// (Not copy(f.hdr[:], buf): Go 1.26's compiler fails on it with
		// "disjointTypes: one of arguments is not a pointer".)
		f.hdrOff, f.hdr = iOfst, [frameHeaderSize]byte(buf)
	case fullPage(iAmt) && framePage(iOfst, iAmt):
		f.sawHeader(buf, true)
		if g := f.flags(); g != nil && g.compute == 1 {
			sealPage(buf)
			if rc := write(tls, s, zBuf, iAmt, iOfst); rc != sqlite3.SQLITE_OK || f.hdrOff != iOfst-frameHeaderSize {
				return rc
			}
			return f.resum(tls, s, buf)
		}
	}
	return write(tls, s, zBuf, iAmt, iOfst)
}

// resum writes again the running checksum of the frame whose page was just
// sealed and written, as SQLite computes it (wal.c, walEncodeFrame): from
// the previous frame's, or for the first frame the log header's, over the
// first 8 bytes of the frame's header and its page. SQLite computed it
// over the page before the seal; what it reads back is this.
func (f *checkedFile) resum(tls *libc.TLS, s uintptr, page []byte) int32 {
	m := methodsOf(s)
	read, write := goFunc[readWriteFn](&m.FxRead), goFunc[readWriteFn](&m.FxWrite)
	buf := tls.Alloc(8)
	defer tls.Free(8)
	b := mem(buf, 8)
	if f.magicOK == 0 {
		if rc := read(tls, s, buf, 4, 0); rc != sqlite3.SQLITE_OK {
			return rc
		}
		f.bigEnd, f.magicOK = int32(b[3]&1), 1
	}
	prev := int64(walHeaderSize - 8) // the log header's checksum
	if f.hdrOff > walHeaderSize {
		prev = f.hdrOff - int64(len(page)) - frameHeaderSize + 16
	}
	if rc := read(tls, s, buf, 8, prev); rc != sqlite3.SQLITE_OK {
		return rc
	}
	s1, s2 := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	s1, s2 = walSum(s1, s2, f.hdr[:8], f.bigEnd == 1)
	s1, s2 = walSum(s1, s2, page, f.bigEnd == 1)
	binary.BigEndian.PutUint32(b, s1)
	binary.BigEndian.PutUint32(b[4:], s2)
	off := f.hdrOff + 16
	f.hdrOff = -1
	return write(tls, s, buf, 8, off)
}

func ckTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	s := sub(pFile)
	return goFunc[func(*libc.TLS, uintptr, int64) int32](&methodsOf(s).FxTruncate)(tls, s, size)
}

func ckSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	s := sub(pFile)
	return goFunc[fileIntFn](&methodsOf(s).FxSync)(tls, s, flags)
}

func ckFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	s := sub(pFile)
	return goFunc[filePtrFn](&methodsOf(s).FxFileSize)(tls, s, pSize)
}

func ckLock(tls *libc.TLS, pFile uintptr, eLock int32) int32 {
	s := sub(pFile)
	return goFunc[fileIntFn](&methodsOf(s).FxLock)(tls, s, eLock)
}

func ckUnlock(tls *libc.TLS, pFile uintptr, eLock int32) int32 {
	s := sub(pFile)
	return goFunc[fileIntFn](&methodsOf(s).FxUnlock)(tls, s, eLock)
}

func ckCheckReservedLock(tls *libc.TLS, pFile, pResOut uintptr) int32 {
	s := sub(pFile)
	return goFunc[filePtrFn](&methodsOf(s).FxCheckReservedLock)(tls, s, pResOut)
}

// ckFileControl answers PRAGMA checksum_verification for the database
// file: "1" when the connection checks pages, "0" when it does not (no
// checksums, or turned off); with a value, it turns the checks of the
// connection off or (where there are checksums) on.
func ckFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	f := fileOf(pFile)
	if op == sqlite3.SQLITE_FCNTL_PRAGMA && f.kind == fileDB {
		az := (*[3]uintptr)(ptr(pArg))
		if strings.EqualFold(libc.GoString(az[1]), "checksum_verification") {
			if az[2] != 0 {
				f.verify = 0
				if pragmaOn(libc.GoString(az[2])) {
					f.verify = f.compute
				}
			}
			az[0] = sqliteString(tls, string(rune('0'+f.verify)))
			return sqlite3.SQLITE_OK
		}
	}
	s := sub(pFile)
	return goFunc[func(*libc.TLS, uintptr, int32, uintptr) int32](&methodsOf(s).FxFileControl)(tls, s, op, pArg)
}

// pragmaOn reads a PRAGMA's boolean value as cksumvfs does.
func pragmaOn(v string) bool {
	v = strings.ToLower(v)
	return v != "" && v[0] >= '1' && v[0] <= '9' || strings.HasPrefix(v, "enable") || v == "yes" || v == "on"
}

// sqliteString copies s into memory from sqlite3_malloc, which SQLite
// frees.
func sqliteString(tls *libc.TLS, s string) uintptr {
	p := sqlite3.Xsqlite3_malloc(tls, int32(len(s)+1))
	if p != 0 {
		b := mem(p, int32(len(s)+1))
		copy(b, s)
		b[len(s)] = 0
	}
	return p
}

func ckSectorSize(tls *libc.TLS, pFile uintptr) int32 {
	s := sub(pFile)
	return goFunc[fileFn](&methodsOf(s).FxSectorSize)(tls, s)
}

// ckDeviceCharacteristics hides SQLITE_IOCAP_SUBPAGE_READ, with which
// SQLite may read part of a page: a part cannot be checked.
func ckDeviceCharacteristics(tls *libc.TLS, pFile uintptr) int32 {
	s := sub(pFile)
	return goFunc[fileFn](&methodsOf(s).FxDeviceCharacteristics)(tls, s) &^ sqlite3.SQLITE_IOCAP_SUBPAGE_READ
}

func ckShmMap(tls *libc.TLS, pFile uintptr, iPg, pgsz, bExtend int32, pp uintptr) int32 {
	s := sub(pFile)
	return goFunc[func(*libc.TLS, uintptr, int32, int32, int32, uintptr) int32](&methodsOf(s).FxShmMap)(tls, s, iPg, pgsz, bExtend, pp)
}

func ckShmLock(tls *libc.TLS, pFile uintptr, offset, n, flags int32) int32 {
	s := sub(pFile)
	return goFunc[func(*libc.TLS, uintptr, int32, int32, int32) int32](&methodsOf(s).FxShmLock)(tls, s, offset, n, flags)
}

func ckShmBarrier(tls *libc.TLS, pFile uintptr) {
	s := sub(pFile)
	goFunc[func(*libc.TLS, uintptr)](&methodsOf(s).FxShmBarrier)(tls, s)
}

func ckShmUnmap(tls *libc.TLS, pFile uintptr, deleteFlag int32) int32 {
	s := sub(pFile)
	return goFunc[fileIntFn](&methodsOf(s).FxShmUnmap)(tls, s, deleteFlag)
}

// ckFetch maps no page of a file with checksums: a mapped page would be
// read without its check.
func ckFetch(tls *libc.TLS, pFile uintptr, iOfst int64, iAmt int32, pp uintptr) int32 {
	*(*uintptr)(ptr(pp)) = 0
	if g := fileOf(pFile).flags(); g == nil || g.compute == 1 {
		return sqlite3.SQLITE_OK
	}
	s := sub(pFile)
	m := methodsOf(s)
	if m.FiVersion < 3 || m.FxFetch == 0 {
		return sqlite3.SQLITE_OK
	}
	return goFunc[func(*libc.TLS, uintptr, int64, int32, uintptr) int32](&m.FxFetch)(tls, s, iOfst, iAmt, pp)
}

func ckUnfetch(tls *libc.TLS, pFile uintptr, iOfst int64, p uintptr) int32 {
	s := sub(pFile)
	m := methodsOf(s)
	if m.FiVersion < 3 || m.FxUnfetch == 0 {
		return sqlite3.SQLITE_OK
	}
	return goFunc[func(*libc.TLS, uintptr, int64, uintptr) int32](&m.FxUnfetch)(tls, s, iOfst, p)
}
