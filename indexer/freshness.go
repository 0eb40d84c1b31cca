package indexer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hubsnap/hubsnap/store"
)

// The cheap check. Every process that opens the cache, and the watcher of
// a running serve after every burst of events, asks whether the index may
// lag behind the files, without the write lock and without writing: the
// release files' sizes and modification times against what the index
// recorded, and the .current files against the index's pointers. When
// they agree, nothing needs doing. When they do not, a writer may be in
// the middle of a change (its files renamed, its transaction not yet
// committed), or the files changed behind hubsnap's back; only the
// reconcile, holding the write lock, decides which, from what it reads
// then. Nothing is ever repaired from what this check saw.

// fileStat is what the cheap check compares of a release file.
type fileStat struct {
	size, mtime int64
}

func statOf(info os.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
}

// stale tells whether the index may disagree with the release files.
func (c *Cache) stale(ctx context.Context) (bool, error) {
	known, err := c.store.IndexedFiles(ctx)
	if err != nil {
		return false, err
	}
	have, err := c.store.Pointers(ctx)
	if err != nil {
		return false, err
	}
	files, pointers := c.scanFiles()
	for key, st := range files {
		was, ok := known[key]
		if (!ok || was.Size != st.size || was.MTime != st.mtime) && !c.invalid.has(c.releaseFile(key.Project, key.ID), st) {
			return true, nil
		}
	}
	valid := map[store.ReleaseKey]string{}
	for key, was := range known {
		if _, ok := files[key]; !ok {
			return true, nil // a file is gone
		}
		valid[key] = was.Environment
	}
	return !slices.Equal(have, mirrored(pointers, valid)), nil
}

// scanFiles lists the release files of the cache and reads its .current
// files, as the reconcile would, without a word about what it skips.
func (c *Cache) scanFiles() (map[store.ReleaseKey]fileStat, []store.Pointer) {
	files := map[store.ReleaseKey]fileStat{}
	var pointers []store.Pointer
	root := filepath.Join(c.dir, releasesDir)
	if realDir(root) != nil {
		return files, nil
	}
	projects, _ := os.ReadDir(root)
	for _, p := range projects {
		if !p.IsDir() || !ValidName(p.Name()) {
			continue
		}
		dir := filepath.Join(root, p.Name())
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			if env, ok := splitName(e.Name(), currentExt); ok {
				if id, err := readPointer(filepath.Join(dir, e.Name())); err == nil {
					pointers = append(pointers, store.Pointer{Project: p.Name(), Environment: env, ID: id})
				}
			} else if id, ok := splitName(e.Name(), releaseExt); ok {
				if info, err := e.Info(); err == nil {
					files[store.ReleaseKey{Project: p.Name(), ID: id}] = statOf(info)
				}
			}
		}
	}
	return files, pointers
}

// invalidFiles are the release files the last reconcile skipped, with
// their size and time then.
type invalidFiles struct {
	mu    sync.Mutex
	files map[string]fileStat
}

func (v *invalidFiles) reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.files = nil
}

func (v *invalidFiles) add(path string, info os.FileInfo) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.files == nil {
		v.files = map[string]fileStat{}
	}
	v.files[path] = statOf(info)
}

// has tells whether the file at path was skipped as it is now.
func (v *invalidFiles) has(path string, st fileStat) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	was, ok := v.files[path]
	return ok && was == st
}
