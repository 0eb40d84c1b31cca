//go:build unix

package store

import "syscall"

// diskFull reports whether the filesystem holding dir has no space left
// for an unprivileged writer.
func diskFull(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Bavail == 0
}
