//go:build !unix

package store

// diskFull reports whether the filesystem holding dir has no space left;
// where it cannot tell, it says no.
func diskFull(string) bool { return false }
