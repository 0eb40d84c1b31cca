package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// One writer at a time (docs/design.md). Every change to the cache — a
// release file, a .current pointer, a temp file's removal, an index row —
// is made by a process holding the cache's write lock, an flock on
// {cache}/cache.lock, and everything that change decides is read after
// the lock was taken. The index's own write lock (an immediate SQLite
// transaction) is taken inside it, for the readers' sake: they see a
// change whole or not at all. A process that does not hold the lock only
// reads; a check made without it may only conclude that nothing needs
// doing (see Cache.refresh).
//
// The lock is never taken while a SQLite write transaction is open, so the
// two locks cannot wait for each other. It is released when the process
// ends, however it ends.

const (
	// lockFile is the cache's write lock, beside the index.
	lockFile = "cache.lock"
	// lockWait is how long a change waits for another to finish: about
	// the time a 100,000-table import holds it, twice over.
	lockWait = 30 * time.Second
)

// write runs fn holding the cache's write lock, after removing the temp
// files left by writers that died. A cache this process cannot write
// fails at once, saying why.
func (c *Cache) write(ctx context.Context, fn func() error) error {
	if c.readOnly != nil {
		return c.readOnlyError()
	}
	lock, err := atomicfile.LockFile(ctx, filepath.Join(c.dir, lockFile), lockWait)
	if err != nil {
		return lockError(c.dir, err)
	}
	defer lock.Unlock()
	c.removeLeftovers()
	return fn()
}

// readOnlyError says that the cache cannot be changed, and why.
func (c *Cache) readOnlyError() error {
	if errors.Is(c.readOnly, os.ErrPermission) || errors.Is(c.readOnly, errReadOnlyFS) {
		return fmt.Errorf("cannot change the cache %s: %w", c.dir, c.readOnly)
	}
	return c.readOnly
}

// lockError words a failure to take the write lock of the cache dir.
func lockError(dir string, err error) error {
	switch {
	case errors.Is(err, atomicfile.ErrBusy):
		return fmt.Errorf("the cache is busy: %w", err)
	case errors.Is(err, os.ErrPermission), errors.Is(err, errReadOnlyFS):
		return fmt.Errorf("cannot change the cache %s: %w", dir, err)
	}
	return fmt.Errorf("lock the cache: %w", err)
}

// removeLeftovers removes the temp files that no live writer owns (see
// atomicfile.RemoveLeftovers) from the cache folder, releases/ and each
// project folder. The caller holds the write lock.
func (c *Cache) removeLeftovers() {
	dirs := []string{c.dir}
	root := filepath.Join(c.dir, releasesDir)
	if realDir(root) == nil {
		dirs = append(dirs, root)
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.IsDir() && ValidName(e.Name()) { // a link is not a folder here
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	var all atomicfile.Leftovers
	for _, d := range dirs {
		n := atomicfile.RemoveLeftovers(d, c.now())
		all.Files += n.Files
		all.Bytes += n.Bytes
	}
	if all.Files > 0 {
		c.log.Info("removed temp files left by a hubsnap that stopped midway", "files", all.Files, "bytes", all.Bytes)
	}
}
