//go:build unix

package store

import "syscall"

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
