// Package indexer fills and keeps hubsnap's local cache: it fetches release
// snapshots from the Hub, makes them safe, writes them as release files and
// indexes them into the store, and follows the files while a server runs.
//
// # From the Hub to the cache
//
// Package indexer/hub is the client of the Hub's release API (the protocol is in
// docs/design.md): it lists a project's releases for an environment and
// downloads one snapshot, verifying its sha256 against the listing, with
// retries, size limits and gzip handled. The snapshot document is decoded
// by the leaf package indexer/snapshot (strict JSON, the format's rules,
// sanitized by construction; a *snapshot.Error names every problem's
// path). Names that become file names (project, environment, release id)
// must match snapshot.NamePattern; CheckName says why one does not, with
// the error code of the tools.
//
// Sync and Import are the two ways in: Sync picks the newest release (or
// the one asked for) and downloads it unless the cache already holds that
// digest; Import reads a snapshot file offline. Both then ingest it
// (ingest.go): indexer drives a store.ReleaseTx, handing it the decoder
// teed into the new release file with the findings of the schema rules
// (indexer/lint) about each table, judges the foreign keys' types from the
// rows written, renames the file into place while the transaction holds
// the write lock, and commits, or undoes the renames. Data flows one way:
// store never calls back into indexer.
//
// # The cache
//
// Cache is the cache folder (its layout and the index's tables are in
// docs/index.md):
//
//	{cache}/index.db                                  the index, derived
//	{cache}/releases/{project}/{id}.json              sanitized release files
//	{cache}/releases/{project}/{id}.json.zst          one over 16 MiB, zstd (release_codec.go)
//	{cache}/releases/{project}/{environment}.current  the current release id
//
// The release files are the truth; the index is derived from them. Release
// files and .current pointers are replaced through store/atomicfile (a temp
// file in the same folder, fsync, rename), inside the index transaction
// that records them: when either fails, both are as they were, and readers
// never see half a release. Cache.Use makes a cached release current (an offline rollback).
// Open rebuilds an index that is missing or corrupt, and Reconcile brings
// one that lags behind the files up to date: new and changed files are
// indexed, releases whose file went are dropped, .current pointers are
// mirrored.
//
// # Following the files
//
// Cache.Watch follows the release folders with fsnotify while a server
// runs: bursts of events are folded into one Reconcile, so a sync, import
// or use in another process, or a removed file, shows in the next tool
// call, within two seconds. A periodic rescan covers filesystems that send
// no events.
//
// The MCP tools that read the index are described in docs/tools.md. Of
// hubsnap's packages, indexer imports store, store/atomicfile and the
// leaves indexer/snapshot, indexer/analysis and indexer/lint: it never
// imports mcpserver, and cmd/hubsnap is its only user. Not here: the
// release model and its decoder (indexer/snapshot), the logic analyser
// (indexer/analysis), the schema rules (indexer/lint), the Hub client with
// its own errors (indexer/hub), any SQL (store). Its subpackage hubtest is
// a real Hub server for tests and the demo.
package indexer
