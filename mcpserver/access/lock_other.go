//go:build !unix

package access

// lockFile is a no-op where flock is missing: two token commands run at
// the same instant may lose one change there. The file itself is still
// replaced atomically.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
