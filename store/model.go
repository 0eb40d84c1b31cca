package store

import "github.com/hubsnap/hubsnap/indexer/snapshot"

// The release model lives in indexer/snapshot, the leaf every layer reads.
// store names its types too, so that the callers of store (its tests, the
// tests of mcpserver, storetest) keep one import.
type (
	// Release is snapshot.Release.
	Release = snapshot.Release
	// Origin is snapshot.Origin.
	Origin = snapshot.Origin
	// Snapshot is snapshot.Snapshot.
	Snapshot = snapshot.Snapshot
	// Connection is snapshot.Connection.
	Connection = snapshot.Connection
	// Table is snapshot.Table.
	Table = snapshot.Table
	// Column is snapshot.Column.
	Column = snapshot.Column
	// ForeignKey is snapshot.ForeignKey.
	ForeignKey = snapshot.ForeignKey
	// Index is snapshot.Index.
	Index = snapshot.Index
	// Logic is snapshot.Logic.
	Logic = snapshot.Logic
	// Param is snapshot.Param.
	Param = snapshot.Param
	// Auth is snapshot.Auth.
	Auth = snapshot.Auth
)

// Sources of a cached release (snapshot.SourceHub, snapshot.SourceImport).
const (
	SourceHub    = snapshot.SourceHub
	SourceImport = snapshot.SourceImport
)

// DefaultConnection is snapshot.DefaultConnection.
const DefaultConnection = snapshot.DefaultConnection

// ReleaseInfo describes a release in the index, without its contents.
type ReleaseInfo struct {
	Release
	Origin
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
