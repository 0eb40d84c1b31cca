package indexer

import (
	"context"
	"errors"
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

// seenFile is a release file the cheap check saw: its path and state.
type seenFile struct {
	path string
	fileStat
}

func statOf(info os.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
}

// stale tells whether the index may disagree with the release files.
// What this process may not read (another user's folder or .current file,
// in a shared cache) is taken to agree: the index is all it can know.
func (c *Cache) stale(ctx context.Context) (bool, error) {
	known, err := c.store.IndexedFiles(ctx)
	if err != nil {
		return false, err
	}
	have, err := c.store.Pointers(ctx)
	if err != nil {
		return false, err
	}
	sc := c.scanFiles()
	if sc.blind {
		return false, nil
	}
	for key, st := range sc.files {
		was, ok := known[key]
		if (!ok || was.Size != st.size || was.MTime != st.mtime) && !c.invalid.has(st.path, st.fileStat) {
			return true, nil
		}
	}
	valid := map[store.ReleaseKey]string{}
	for key, was := range known {
		if _, ok := sc.files[key]; !ok && !sc.unknown[key.Project] {
			return true, nil // a file is gone
		}
		valid[key] = was.Environment
	}
	hidden := func(p store.Pointer) bool { return sc.unknown[p.Project] }
	want := slices.DeleteFunc(mirrored(sc.pointers, valid), hidden)
	return !slices.Equal(slices.DeleteFunc(have, hidden), want), nil
}

// scan is what the cheap check saw of the release files.
type scan struct {
	files    map[store.ReleaseKey]seenFile
	pointers []store.Pointer
	unknown  map[string]bool // projects whose folder or pointers could not be read
	blind    bool            // releases/ could not be read
}

// scanFiles lists the release files of the cache and reads its .current
// files, as the reconcile would, without a word about what it skips.
func (c *Cache) scanFiles() scan {
	sc := scan{files: map[store.ReleaseKey]seenFile{}, unknown: map[string]bool{}}
	root := filepath.Join(c.dir, releasesDir)
	if realDir(root) != nil {
		return sc
	}
	projects, err := os.ReadDir(root)
	if err != nil {
		sc.blind = !errors.Is(err, os.ErrNotExist)
		return sc
	}
	for _, p := range projects {
		if !p.IsDir() || !ValidName(p.Name()) {
			continue
		}
		dir := filepath.Join(root, p.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			sc.unknown[p.Name()] = true
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			if env, ok := splitName(e.Name(), currentExt); ok {
				id, err := readPointer(filepath.Join(dir, e.Name()))
				switch {
				case err == nil:
					sc.pointers = append(sc.pointers, store.Pointer{Project: p.Name(), Environment: env, ID: id})
				case errors.Is(err, os.ErrPermission):
					sc.unknown[p.Name()] = true
				}
			}
		}
		for id, info := range releaseEntries(entries) {
			sc.files[store.ReleaseKey{Project: p.Name(), ID: id}] = seenFile{filepath.Join(dir, info.Name()), statOf(info)}
		}
	}
	return sc
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
