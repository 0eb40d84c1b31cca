// Package atomicfile is hubsnap's one way to replace a file: the cache's
// release files and .current pointers, the contexts file and the Hub tokens
// kept for contexts, and the token file of `hubsnap serve --http` all go
// through it.
//
// A file is never written in place. The new content goes to a temp file in
// the same folder, named .NAME.part-* (hidden, so never taken for a release
// file), which is written, fsynced and closed; the temp file is then renamed
// over NAME and the folder is fsynced, so that the rename itself survives a
// crash. A reader sees the old file or the new one, never half of either.
//
// WriteFile does all of that in one call. The cache needs two phases, so
// that a release file and the index change together or not at all:
// WriteTemp prepares the temp file; Replace renames it into place and
// returns a finish function that keeps the change (finish(true)) or puts the
// old file back (finish(false)); SyncDir then makes the renames durable.
// RemoveLeftovers clears the temp files of a process that died, which it
// tells from a live writer's by a lock (lock.go); LockFile takes the
// cache's write lock, under which every change to the cache is made.
//
// Files are readable and writable by their owner only (0600). Folders are
// the caller's to create; hubsnap makes its own 0700.
//
// The package imports only the standard library, so that cmd, indexer and
// mcpserver/access can share it without importing each other.
//
// # What is not here
//
// Which files are replaced and when (packages indexer, access and
// cmd/hubsnap). It imports the standard library only.
package atomicfile
