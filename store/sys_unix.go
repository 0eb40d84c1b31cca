//go:build unix

package store

import (
	"os"
	"syscall"
)

// What the operating system tells about the index's files (sys_other.go
// where it cannot): whether this process may read or write them
// (access.go), whether their filesystem is full (store.go, readonly.go),
// and which file the index is (the stamp, verify.go).

// access tells whether this process may read (or, with write, write) the
// file at path: nil, or the reason, such as syscall.EACCES or EROFS.
func access(path string, write bool) error {
	mode := uint32(4) // R_OK
	if write {
		mode = 2 // W_OK
	}
	return syscall.Access(path, mode)
}

// readOnlyFS tells whether dir is on a read-only filesystem, which no one
// can write.
func readOnlyFS(dir string) bool {
	return access(dir, true) == syscall.EROFS
}

// diskFull reports whether the filesystem holding dir has no space left
// for an unprivileged writer.
func diskFull(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Bavail == 0
}

// fileID is the inode and device of a file, for the index's stamp: a file
// put in the index's place by a copy or a rename has another inode even
// when its size and time match.
func fileID(info os.FileInfo) (inode, dev int64) {
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		return int64(sys.Ino), int64(sys.Dev)
	}
	return 0, 0
}
