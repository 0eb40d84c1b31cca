package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// Repairing a damaged index (docs/design.md, "A damaged index"). The
// release files are the truth; the index is rebuilt from them into a temp
// file beside it (rebuildIndex), which store.Restore copies into the live
// index in one write transaction: processes that hold the index open see
// the repair as a commit. A reconcile follows, for release files that
// changed while the rebuild ran.

// buildIndexCopy builds, from the release files of the cache in dir, a
// new index in a temp file beside the index (.index.db.part-*), with pages
// of size bytes (0: a new index's). It reads the release files without the
// cache's write lock and writes nothing but the copy: the caller copies it
// into the live index holding the lock and reconciles again there, so a
// change made meanwhile is not lost. The temp file stays locked (owned, see
// atomicfile.CreateTemp) until done is called, which removes it.
func buildIndexCopy(ctx context.Context, dir string, size int, log *slog.Logger) (path string, done func(), err error) {
	f, err := atomicfile.CreateTemp(filepath.Join(dir, indexFile))
	if err != nil {
		return "", nil, fmt.Errorf("rebuild index: %w", err)
	}
	path = f.Name()
	done = func() {
		store.RemoveIndex(path)
		f.Close() // after the removal: the lock covers it
	}
	st, err := store.Create(ctx, path, size)
	if err != nil {
		done()
		return "", nil, fmt.Errorf("rebuild index: %w", err)
	}
	c := &Cache{dir: dir, store: st, log: log, now: time.Now}
	_, err = c.reconcile(ctx) // the copy is this process's alone: no lock
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		done()
		return "", nil, fmt.Errorf("rebuild index: %w", err)
	}
	return path, done, nil
}

// Repair rebuilds the index from the release files and copies the result
// into the open index, whose other users see it as one commit. Serve calls
// it when a call met a damaged page; hubsnap index verify --repair too.
// The copy and the reconcile after it run holding the cache's write lock.
func (c *Cache) Repair(ctx context.Context) error {
	if c.readOnly != nil {
		return c.readOnlyError()
	}
	size, err := c.store.PageSize(ctx)
	if err != nil {
		size = 0 // page 1 is damaged: the size of a new index
	}
	tmp, done, err := buildIndexCopy(ctx, c.dir, size, quiet(c.log))
	if err != nil {
		return err
	}
	defer done()
	err = c.write(ctx, func() error {
		if err := c.store.Restore(ctx, tmp); err != nil {
			return fmt.Errorf("repair index: %w", err)
		}
		// Release files that changed while the copy was built.
		if _, err := c.reconcile(ctx); err != nil {
			return err
		}
		// The copy was built without a parser: its postgres releases wait
		// for their logics' analysis. A parsing Cache does it now; serve's
		// is told (its analyst runs hubsnap index analyze).
		if c.logics.analyzer != nil {
			if _, err := c.store.AnalyzePending(ctx, c.logics.analyzer); err != nil {
				return fmt.Errorf("repair index: %w", err)
			}
		}
		return nil
	})
	if err == nil && c.logics.analyzer == nil {
		c.logics.written()
	}
	return err
}

// openDamaged opens the index at path, which store.Open found unusable
// (damaged, without checksums, or newer than this hubsnap): it is rebuilt
// from the release files and copied into the file as Repair does, holding
// the cache's write lock; under the lock it looks again first, since
// another hubsnap may have repaired it meanwhile. Only a file that SQLite
// cannot open as a database at all (its header is damaged) is deleted and
// made again: processes that hold it keep reading their copy.
func openDamaged(ctx context.Context, dir, path string, log *slog.Logger, cause error) (*store.Store, error) {
	log.Warn("the index is unusable; rebuilding it from the release files", "index", path, "err", cause)
	size, err := store.FilePageSize(ctx, path)
	if err != nil {
		size = 0 // the header is damaged: a new index's
	}
	tmp, done, err := buildIndexCopy(ctx, dir, size, quiet(log))
	if errors.Is(err, os.ErrPermission) || errors.Is(err, errReadOnlyFS) {
		return nil, fmt.Errorf("%w; this hubsnap cannot write the cache %s to rebuild it (%w): "+
			"run `hubsnap snapshot list --cache-dir %s` as a user who can", cause, dir, err, dir)
	}
	if err != nil {
		return nil, err
	}
	defer done()
	lock, err := atomicfile.LockFile(ctx, filepath.Join(dir, lockFile), lockWait)
	if err != nil {
		return nil, fmt.Errorf("%w; repairing it needs the cache's write lock: %w", cause, lockError(dir, err))
	}
	defer lock.Unlock()
	st, err := store.Open(ctx, path)
	if !errors.Is(err, store.ErrCorrupt) {
		return st, err // repaired by another hubsnap, or another failure
	}
	return installRebuilt(ctx, path, tmp, log)
}

// installRebuilt copies the rebuilt index tmp into the index at path,
// which cannot be opened, and opens it.
func installRebuilt(ctx context.Context, path, tmp string, log *slog.Logger) (*store.Store, error) {
	if err := store.RestoreFile(ctx, path, tmp); err == nil {
		st, err := store.Open(ctx, path)
		if err == nil || !errors.Is(err, store.ErrCorrupt) {
			return st, err
		}
		log.Warn("the repaired index is still unusable", "index", path, "err", err)
	} else {
		log.Warn("the index cannot be repaired in place; making it again", "index", path, "err", err)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", ".checked"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove corrupt index: %w", err)
		}
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := st.Restore(ctx, tmp); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// quiet is log without the Info lines of a rebuild's reconcile (one per
// release file), which say nothing about the live index.
func quiet(log *slog.Logger) *slog.Logger {
	return slog.New(levelFilter{log.Handler(), slog.LevelWarn})
}

// levelFilter passes records of level min and above.
type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

func (f levelFilter) WithAttrs(as []slog.Attr) slog.Handler {
	return levelFilter{f.Handler.WithAttrs(as), f.min}
}

func (f levelFilter) WithGroup(name string) slog.Handler {
	return levelFilter{f.Handler.WithGroup(name), f.min}
}
