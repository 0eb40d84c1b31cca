package store

import "github.com/hubsnap/hubsnap/indexer/snapshot"

// ReleaseInfo describes a release in the index, without its contents.
type ReleaseInfo struct {
	snapshot.Release
	snapshot.Origin
	Tables  int
	Logics  int
	Current bool // current for its project and environment
}

// TableRef names a table: its connection and name.
type TableRef struct {
	Connection string
	Name       string
}

// FileState is what the index remembers about a release file, to tell
// cheaply whether the file changed since it was indexed.
type FileState struct {
	Digest string // "sha256:<hex>" of the file's bytes
	Size   int64
	MTime  int64 // unix nanoseconds
}
