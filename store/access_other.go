//go:build !unix

package store

// access cannot tell here: SQLite's own errors will.
func access(string, bool) error { return nil }

// readOnlyFS cannot tell here.
func readOnlyFS(string) bool { return false }
