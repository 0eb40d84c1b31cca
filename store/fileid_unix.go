//go:build unix

package store

import (
	"os"
	"syscall"
)

// fileID is the inode and device of a file, for the index's stamp: a file
// put in the index's place by a copy or a rename has another inode even
// when its size and time match.
func fileID(info os.FileInfo) (inode, dev int64) {
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		return int64(sys.Ino), int64(sys.Dev)
	}
	return 0, 0
}
