// Package store is hubsnap's SQLite index: all of hubsnap's SQL, the
// query-side types (ReleaseInfo, FileState, Target, ...) and the error
// codes the tools answer with (errors.go).
//
// The index (index.db in the cache folder) holds every cached release in
// relational form, shaped for the lookups the MCP tools make: a table by name
// and connection, the tables of a connection, the foreign keys pointing at a
// table, a logic by name. It is derived data: package indexer rebuilds it
// from the release files whenever it is missing or corrupt.
//
// A Store has one writer connection and a small pool of read-only
// connections. Every write runs in one immediate transaction, so readers
// (which keep their own WAL snapshot) never see half a release.
//
// # Writing a release
//
// A release is written by its caller driving a ReleaseTx (release_tx.go):
// BeginRelease takes the write lock, Index pulls the release's parts from
// an iterator (the caller's, around a snapshot.Decoder), Finish writes the
// rest of its rows, and Commit or Rollback ends it; between Finish and
// Commit the caller does the file operations that must take effect with
// the index change. Nothing in store calls back into its caller. The
// ReleaseWriter (writer.go) turns each part into rows, batched into
// multi-row INSERTs run on a pipeline goroutine (tx.go), with the foreign
// keys and search names sorted through bounded spills (spill.go). What is
// judged of a release is judged by the caller and handed over as rows: the
// findings of the schema rules (indexer/lint) with each table, and those
// that need the written rows after Finish (lint_write.go).
//
// # What is not here
//
// The release model (snapshot.Release, snapshot.Table, ...) lives in the
// leaf package indexer/snapshot, and every package names it so. The schema
// rules and their registry are indexer/lint's; the Hub, the release files
// and the cache folder are package indexer's; the tools are package
// mcpserver's; the checksummed VFS the index is opened through is
// store/cksumvfs. store imports migrations and its leaves: indexer/snapshot,
// store/answer, store/atomicfile and store/cksumvfs; and, until the logic
// analysis's driver moves to indexer, indexer/analysis
// (cmd/hubsnap/layout_test.go).
package store
