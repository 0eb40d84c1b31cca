package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// The cache layout (docs/design.md, "The cache"):
//
//	{cache}/index.db                                  the index, derived
//	{cache}/releases/{project}/{id}.json              sanitized release files
//	{cache}/releases/{project}/{id}.json.zst          one over 16 MiB, zstd (release_codec.go)
//	{cache}/releases/{project}/{environment}.current  the current release id
const (
	indexFile      = "index.db"
	releasesDir    = "releases"
	packedExt      = ".json.zst"
	releaseExt     = ".json"
	currentExt     = ".current"
	maxReleaseFile = 2 * hub.DefaultMaxBodySize // a guard against reading a huge stray file
)

// Cache is the local cache folder: release files, which are the truth, and
// the index derived from them.
//
// Every change to the cache, to its files or to its index, is made holding
// the cache's write lock (Cache.write, lock.go), from what was read while
// holding it. A process that does not hold it only reads (docs/design.md,
// "One writer at a time").
type Cache struct {
	dir   string
	store *store.Store
	log   *slog.Logger
	now   func() time.Time
	// readOnly, when not nil, is why this process cannot write the
	// cache: it reads the index as it is (store.Store.ReadOnlyReason).
	readOnly error
	// invalid remembers the release files the last reconcile skipped,
	// so that the cheap check does not take them for changes.
	invalid invalidFiles
	// warnedStale is set once a read-only process said that the index
	// lags behind the files, until it no longer does.
	warnedStale bool
	logics      logicAnalysis // logic_analysis.go
}

// Open opens the cache in dir, creating it if needed. An index that is
// missing, corrupt or from a newer hubsnap is rebuilt from the release
// files; an index that lags behind them is brought up to date, holding the
// write lock. The cache folder's own path is resolved once, here: it may
// be (or lie under) a symbolic link; nothing inside it is followed.
//
// A cache this process cannot write (a read-only mount, another user's
// files, a full disk) is opened read-only: the index is read as it is,
// and what cannot be done is logged.
func Open(ctx context.Context, dir string, log *slog.Logger) (*Cache, error) {
	return OpenWith(ctx, dir, log, OpenOptions{})
}

// OpenWith is Open with options (logic_analysis.go).
func OpenWith(ctx context.Context, dir string, log *slog.Logger, opts OpenOptions) (*Cache, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	abs, err := cacheRoot(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, indexFile)
	st, err := store.Open(ctx, path)
	if errors.Is(err, store.ErrCorrupt) {
		st, err = openDamaged(ctx, abs, path, log, err) // repair.go
	}
	if err != nil {
		return nil, err
	}
	c := &Cache{dir: abs, store: st, log: log, now: time.Now, readOnly: st.ReadOnlyReason()}
	if err := c.logics.open(ctx, abs, opts); err != nil {
		st.Close()
		return nil, err
	}
	if c.readOnly == nil {
		if err := os.Mkdir(filepath.Join(abs, releasesDir), 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			st.Close()
			return nil, fmt.Errorf("create cache folder: %w", err)
		}
	} else if errors.Is(c.readOnly, store.ErrDiskFull) {
		// The index follows the release files again once there is space.
		log.Warn("the disk holding the cache is full: the index is read as it is, and changes to the release files are not indexed",
			"cache", abs)
	}
	if _, err := c.refresh(ctx, false); err != nil {
		c.Close()
		return nil, err
	}
	c.analyzePending(ctx)
	return c, nil
}

// cacheRoot makes the cache folder dir if it is missing and returns its
// absolute path with every symbolic link resolved.
func cacheRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		if _, serr := os.Stat(abs); serr != nil {
			return "", fmt.Errorf("create cache folder: %w", err)
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	return real, nil
}

// Exists reports whether dir holds a cache already. Commands that only read
// use it to avoid creating an empty cache.
func Exists(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}

// ReadOnly is why this process cannot change the cache, which it then
// reads as it is (a read-only mount, another user's cache, a full disk),
// or nil.
func (c *Cache) ReadOnly() error { return c.readOnly }

// Store returns the index, for reading.
func (c *Cache) Store() *store.Store { return c.store }

// Close closes the index.
func (c *Cache) Close() error {
	c.logics.close()
	return c.store.Close()
}

func (c *Cache) projectDir(project string) string {
	return filepath.Join(c.dir, releasesDir, project)
}

// releaseFile is the path of id's release file of the form ext: releaseExt
// (plain) or packedExt (compressed, release_codec.go).
func (c *Cache) releaseFile(project, id, ext string) string {
	return filepath.Join(c.projectDir(project), id+ext)
}

// releaseForms are the two forms of a release file, plain and compressed.
var releaseForms = [...]string{releaseExt, packedExt}

func (c *Cache) currentFile(project, environment string) string {
	return filepath.Join(c.projectDir(project), environment+currentExt)
}

// Releases lists the cached releases of project ("" for all projects).
func (c *Cache) Releases(ctx context.Context, project string) ([]store.ReleaseInfo, error) {
	if project != "" {
		if err := CheckName("project", project); err != nil {
			return nil, err
		}
	}
	return c.store.Releases(ctx, project)
}

// Use makes the cached release id current for project and environment
// (an offline rollback), holding the write lock. It fails with NotFound
// for a release that is not cached and InvalidArgument for one of another
// environment.
func (c *Cache) Use(ctx context.Context, project, environment, id string) (store.ReleaseInfo, error) {
	for _, n := range [][2]string{{"project", project}, {"environment", environment}, {"release id", id}} {
		if err := CheckName(n[0], n[1]); err != nil {
			return store.ReleaseInfo{}, err
		}
	}
	var ri store.ReleaseInfo
	err := c.write(ctx, func() error {
		var err error
		ri, err = c.use(ctx, project, environment, id)
		return err
	})
	return ri, err
}

// use is Use, for a caller holding the write lock.
func (c *Cache) use(ctx context.Context, project, environment, id string) (store.ReleaseInfo, error) {
	key := store.ReleaseKey{Project: project, ID: id}
	ri, err := c.store.ReleaseInfo(ctx, key)
	if err != nil {
		return ri, err
	}
	if ri.Environment != environment {
		return ri, store.Errorf(store.WrongEnvironment, "release %q is for environment %q, not %q", id, ri.Environment, environment)
	}
	if ri.Current && c.pointsAt(project, environment, id) {
		return ri, nil // nothing to write
	}
	if err := c.realDirs(project); err != nil {
		return ri, err
	}
	// The pointer file is written inside the index's transaction, and
	// undone if the commit fails.
	ch, err := c.store.BeginSetCurrent(ctx, project, environment, id)
	if err != nil {
		return ri, err
	}
	defer ch.Rollback()
	finish, err := c.writeCurrent(project, environment, id)
	if err != nil {
		return ri, err
	}
	err = ch.Commit()
	if finish != nil {
		finish(err == nil)
	}
	if err != nil {
		return ri, err
	}
	ri.Current = true
	return ri, nil
}

// pointsAt reports whether {environment}.current, a regular file, holds
// exactly id.
func (c *Cache) pointsAt(project, environment, id string) bool {
	path := c.currentFile(project, environment)
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return false
	}
	old, err := os.ReadFile(path)
	return err == nil && string(old) == id+"\n"
}

// writeCurrent points {environment}.current at id, atomically. When it
// already does, nothing is written.
func (c *Cache) writeCurrent(project, environment, id string) (func(bool), error) {
	if c.pointsAt(project, environment, id) {
		return nil, nil
	}
	path := c.currentFile(project, environment)
	if err := realFile(path); err != nil {
		return nil, err
	}
	tmp, err := atomicfile.WriteTemp(path, []byte(id+"\n"))
	var finish func(bool)
	if err == nil {
		finish, err = atomicfile.Replace(tmp, path)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return finish, nil
}

// splitName returns the stem of a file name with the given extension.
func splitName(name, ext string) (string, bool) {
	stem, ok := strings.CutSuffix(name, ext)
	return stem, ok && ValidName(stem)
}
