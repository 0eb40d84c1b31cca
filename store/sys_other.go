//go:build !unix

package store

import "os"

// Where the operating system cannot tell (see sys_unix.go).

// access cannot tell here: SQLite's own errors will.
func access(string, bool) error { return nil }

// readOnlyFS cannot tell here.
func readOnlyFS(string) bool { return false }

// diskFull reports whether the filesystem holding dir has no space left;
// where it cannot tell, it says no.
func diskFull(string) bool { return false }

// fileID has no portable inode to give here: the index's stamp holds its
// size and times only, so a file put in the index's place with the same
// size and modification time is not checked at open (docs/design.md).
func fileID(os.FileInfo) (inode, dev int64) { return 0, 0 }
