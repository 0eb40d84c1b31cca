package indexer

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// Reconcile brings the index in line with the release files, holding the
// cache's write lock: it indexes new and changed files, drops releases
// whose file is gone or no longer valid, and mirrors the .current
// pointers. A file whose size and modification time match the index is
// taken as unchanged without being read; one that differs is hashed and
// re-indexed only if its content changed. Invalid files and links are
// logged and skipped, never deleted.
//
// Each release is indexed in its own transaction, so a reader never sees
// half of one.
func (c *Cache) Reconcile(ctx context.Context) error {
	_, err := c.refresh(ctx, true)
	return err
}

// refresh brings the index in line with the release files when it may lag
// behind them, and reports whether it changed the index. Without force, a
// cheap check made without the lock (stale) decides first whether there
// may be anything to do; if there may, the reconcile takes the write lock
// and looks again, from what it reads holding it. A process that cannot
// write the cache only says, once, that the index lags behind.
func (c *Cache) refresh(ctx context.Context, force bool) (changed bool, err error) {
	if !force || c.readOnly != nil {
		stale, err := c.stale(ctx)
		if err != nil || !stale {
			if err == nil {
				c.warnedStale = false
			}
			return false, err
		}
	}
	if c.readOnly != nil {
		if !c.warnedStale {
			c.warnedStale = true
			c.log.Warn("the release files differ from the index, which this hubsnap cannot write: the changes are not indexed",
				"cache", c.dir, "why", c.readOnly)
		}
		return false, nil
	}
	err = c.write(ctx, func() error {
		changed, err = c.reconcile(ctx)
		return err
	})
	return changed, err
}

// reconcile is Reconcile for a caller holding the write lock. It reports
// whether the index changed.
func (c *Cache) reconcile(ctx context.Context) (changed bool, err error) {
	if c.store.ReadOnly() {
		return false, nil // nothing can be written (see Open)
	}
	known, err := c.store.IndexedFiles(ctx)
	if err != nil {
		return false, err
	}
	root := filepath.Join(c.dir, releasesDir)
	var projects []os.DirEntry
	if err := realDir(root); err != nil {
		c.log.Warn("skipping the release files", "err", err)
	} else if projects, err = os.ReadDir(root); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("read cache: %w", err)
	}
	c.invalid.reset()
	valid := map[store.ReleaseKey]string{} // valid release -> its environment
	indexed := false                       // whether a release was (re)indexed
	var pointers []store.Pointer
	for _, p := range projects {
		if p.Type()&os.ModeSymlink != 0 && ValidName(p.Name()) {
			c.log.Warn("skipping a project folder", "err", &linkError{filepath.Join(root, p.Name())})
		}
		if !p.IsDir() || !ValidName(p.Name()) {
			continue
		}
		ptrs, n, err := c.reconcileProject(ctx, p.Name(), known, valid)
		if err != nil {
			return false, err
		}
		pointers = append(pointers, ptrs...)
		indexed = indexed || n > 0
	}
	if indexed {
		if err := c.store.Optimize(ctx); err != nil {
			c.log.Debug("optimize index", "err", err)
		}
	}
	for key := range known {
		if _, ok := valid[key]; !ok {
			c.log.Info("release file gone; dropping it from the index", "project", key.Project, "release", key.ID)
			if err := c.store.DeleteRelease(ctx, key); err != nil {
				return false, err
			}
			changed = true
		}
	}

	// Mirror the pointers whose release is indexed and of their environment;
	// the others answer NO_RELEASE until a valid release comes back.
	pointers = mirrored(pointers, valid)
	have, err := c.store.Pointers(ctx)
	if err != nil {
		return false, err
	}
	if !slices.Equal(have, pointers) {
		return true, c.store.ReplacePointers(ctx, pointers)
	}
	return changed || indexed, nil
}

// mirrored returns the pointers the index holds for the pointer files ps:
// those whose release is valid and of their environment, in the index's
// order.
func mirrored(ps []store.Pointer, valid map[store.ReleaseKey]string) []store.Pointer {
	ps = slices.DeleteFunc(ps, func(p store.Pointer) bool {
		env, ok := valid[store.ReleaseKey{Project: p.Project, ID: p.ID}]
		return !ok || env != p.Environment
	})
	slices.SortFunc(ps, func(a, b store.Pointer) int {
		return cmp.Or(strings.Compare(a.Project, b.Project), strings.Compare(a.Environment, b.Environment))
	})
	return ps
}

// reconcileProject handles one project folder. It marks the valid releases
// in valid and returns the folder's pointers and how many releases it
// (re)indexed.
func (c *Cache) reconcileProject(ctx context.Context, project string, known map[store.ReleaseKey]store.IndexedFile,
	valid map[store.ReleaseKey]string) ([]store.Pointer, int, error) {
	dir := c.projectDir(project)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("read cache: %w", err)
	}
	var pointers []store.Pointer
	for _, e := range entries {
		name := e.Name()
		_, isPointer := splitName(name, currentExt)
		_, isRelease := releaseID(name)
		if e.Type()&os.ModeSymlink != 0 && (isPointer || isRelease) {
			c.log.Warn("skipping a file of the cache", "err", &linkError{filepath.Join(dir, name)})
		}
		if !e.Type().IsRegular() { // no folders, no links
			continue
		}
		if env, ok := splitName(name, currentExt); ok {
			id, err := readPointer(filepath.Join(dir, name))
			if err != nil {
				c.log.Warn("skipping current-release file", "file", filepath.Join(dir, name), "err", err)
				continue
			}
			pointers = append(pointers, store.Pointer{Project: project, Environment: env, ID: id})
		}
	}
	indexed := 0
	files := releaseEntries(entries)
	for _, id := range slices.Sorted(maps.Keys(files)) {
		info := files[id]
		key := store.ReleaseKey{Project: project, ID: id}
		env, state, err := c.reconcileRelease(ctx, key, info, known)
		if err != nil {
			return nil, 0, err
		}
		if state != skipped {
			valid[key] = env
		} else {
			c.invalid.add(filepath.Join(dir, info.Name()), info)
		}
		if state == reindexed {
			indexed++
		}
	}
	return pointers, indexed, nil
}

// What reconcileRelease did with a release file.
type fileState int

const (
	skipped   fileState = iota // not a valid release: not in the index
	unchanged                  // already indexed as it is
	reindexed                  // (re)indexed now
)

// reconcileRelease indexes one release file if it changed. It reports what
// it did and the release's environment.
func (c *Cache) reconcileRelease(ctx context.Context, key store.ReleaseKey, info os.FileInfo,
	known map[store.ReleaseKey]store.IndexedFile) (string, fileState, error) {
	path := filepath.Join(c.projectDir(key.Project), info.Name())
	was, indexed := known[key]
	if indexed && was.Size == info.Size() && was.MTime == info.ModTime().UnixNano() {
		return was.Environment, unchanged, nil
	}
	if info.Size() > maxReleaseFile {
		c.log.Warn("skipping release file: too large", "file", path, "size", info.Size())
		return "", skipped, nil
	}
	// Read as a stream, twice: to hash, then, when it changed, to decode.
	f, err := os.Open(path)
	var n int64
	h := sha256.New()
	if err == nil {
		defer f.Close()
		n, err = io.Copy(h, f)
	}
	if err != nil {
		c.log.Warn("skipping release file: cannot read it", "file", path, "err", err)
		return "", skipped, nil
	}
	file := store.FileState{Digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), Size: n, MTime: info.ModTime().UnixNano()}
	if indexed && was.Digest == file.Digest {
		return was.Environment, unchanged, c.store.TouchFile(ctx, key, file)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		c.log.Warn("skipping release file: cannot read it", "file", path, "err", err)
		return "", skipped, nil
	}
	doc, closeDoc, err := unpack(info.Name(), io.LimitReader(f, n))
	if err != nil {
		return "", skipped, err
	}
	defer closeDoc()
	c.log.Info("indexing release file", "project", key.Project, "release", key.ID)
	ri, err := c.ingest(ctx, bufio.NewReaderSize(doc, 64<<10), ingest{
		// A file put here by hand, not by hubsnap, says nothing of where
		// it came from.
		origin: snapshot.Origin{Source: snapshot.SourceImport, Digest: file.Digest,
			SyncedAt: info.ModTime().UTC().Format(time.RFC3339)},
		file: file,
		check: func(r snapshot.Release, _ string) error {
			if r.ID != key.ID || r.Project != key.Project {
				return fmt.Errorf("%w: it holds release %q of project %q", errWrongRelease, r.ID, r.Project)
			}
			return nil
		},
	})
	_, invalid := errors.AsType[*snapshot.Error](err)
	if invalid || errors.Is(err, errWrongRelease) || unreadable(err) {
		c.log.Warn("skipping release file", "file", path, "err", err)
		return "", skipped, nil
	}
	if err != nil {
		return "", skipped, err
	}
	return ri.Environment, reindexed, nil
}

// readPointer reads a .current file: one release id on one line.
func readPointer(path string) (string, error) {
	data, err := os.ReadFile(path)
	switch {
	case err != nil:
		return "", err
	case len(data) > 1024:
		return "", errors.New("too long")
	}
	id := strings.TrimSpace(string(data))
	if !ValidName(id) {
		return "", errors.New("not a release id")
	}
	return id, nil
}
