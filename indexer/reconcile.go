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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hubsnap/hubsnap/store"
)

// Reconcile brings the index in line with the release files: it indexes new
// and changed files, drops releases whose file is gone or no longer valid,
// and mirrors the .current pointers. A file whose size and modification time
// match the index is taken as unchanged without being read; one that differs
// is hashed and re-indexed only if its content changed. Invalid files are
// logged and skipped, never deleted.
//
// Each release is indexed in its own transaction, so a reader never sees
// half of one.
func (c *Cache) Reconcile(ctx context.Context) error {
	_, err := c.reconcile(ctx)
	return err
}

// reconcile is Reconcile, also reporting whether the index changed.
func (c *Cache) reconcile(ctx context.Context) (changed bool, err error) {
	if c.store.ReadOnly() {
		return false, nil // a full disk: nothing can be written (see Open)
	}
	known, err := c.store.IndexedFiles(ctx)
	if err != nil {
		return false, err
	}
	root := filepath.Join(c.dir, releasesDir)
	projects, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("read cache: %w", err)
	}
	valid := map[store.ReleaseKey]string{} // valid release -> its environment
	indexed := false                       // whether a release was (re)indexed
	var pointers []store.Pointer
	for _, p := range projects {
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
	pointers = slices.DeleteFunc(pointers, func(p store.Pointer) bool {
		env, ok := valid[store.ReleaseKey{Project: p.Project, ID: p.ID}]
		return !ok || env != p.Environment
	})
	slices.SortFunc(pointers, func(a, b store.Pointer) int {
		return cmp.Or(strings.Compare(a.Project, b.Project), strings.Compare(a.Environment, b.Environment))
	})
	have, err := c.store.Pointers(ctx)
	if err != nil {
		return false, err
	}
	if !slices.Equal(have, pointers) {
		return true, c.store.ReplacePointers(ctx, pointers)
	}
	return changed || indexed, nil
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
	indexed := 0
	for _, e := range entries {
		if !e.Type().IsRegular() { // no folders, no symlinks out of the cache
			continue
		}
		name := e.Name()
		if env, ok := splitName(name, currentExt); ok {
			if id, ok := c.readPointer(filepath.Join(dir, name)); ok {
				pointers = append(pointers, store.Pointer{Project: project, Environment: env, ID: id})
			}
			continue
		}
		id, ok := splitName(name, releaseExt)
		if !ok {
			continue
		}
		key := store.ReleaseKey{Project: project, ID: id}
		env, state, err := c.reconcileRelease(ctx, key, e, known)
		if err != nil {
			return nil, 0, err
		}
		if state != skipped {
			valid[key] = env
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
func (c *Cache) reconcileRelease(ctx context.Context, key store.ReleaseKey, e os.DirEntry,
	known map[store.ReleaseKey]store.IndexedFile) (string, fileState, error) {
	info, err := e.Info()
	if err != nil {
		return "", skipped, nil // gone since the listing
	}
	path := c.releaseFile(key.Project, key.ID)
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
	c.log.Info("indexing release file", "project", key.Project, "release", key.ID)
	ri, err := c.ingest(ctx, bufio.NewReaderSize(io.LimitReader(f, n), 64<<10), ingest{
		// A file put here by hand, not by hubsnap, says nothing of where
		// it came from.
		origin: store.Origin{Source: store.SourceImport, Digest: file.Digest,
			SyncedAt: info.ModTime().UTC().Format(time.RFC3339)},
		file: file,
		check: func(r store.Release, _ string) error {
			if r.ID != key.ID || r.Project != key.Project {
				return fmt.Errorf("%w: it holds release %q of project %q", errWrongRelease, r.ID, r.Project)
			}
			return nil
		},
	})
	_, invalid := errors.AsType[*SnapshotError](err)
	if invalid || errors.Is(err, errWrongRelease) {
		c.log.Warn("skipping release file", "file", path, "err", err)
		return "", skipped, nil
	}
	if err != nil {
		return "", skipped, err
	}
	return ri.Environment, reindexed, nil
}

// readPointer reads a .current file: one release id on one line.
func (c *Cache) readPointer(path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1024 {
		c.log.Warn("skipping current-release file", "file", path, "err", err)
		return "", false
	}
	id := strings.TrimSpace(string(data))
	if !ValidName(id) {
		c.log.Warn("skipping current-release file: not a release id", "file", path)
		return "", false
	}
	return id, true
}
