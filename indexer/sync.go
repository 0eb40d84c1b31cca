package indexer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// Result is the outcome of a sync or an import.
type Result struct {
	store.ReleaseInfo
	// Unchanged is set when the cache already held the release with the
	// same digest: nothing was downloaded or indexed.
	Unchanged bool
}

// SyncOptions say what Sync fetches and where it puts it.
type SyncOptions struct {
	CacheDir    string
	Hub         *hub.Client
	Project     string
	Environment string
	// Release is the id to fetch; "" fetches the highest version.
	Release string
	Log     *slog.Logger
	// Logics says how the Cache it opens analyses logics (serve: NoParse;
	// logic_analysis.go).
	Logics OpenOptions
}

// Sync fetches a release of a project from the Hub into the cache and makes
// it current for its environment. A release the cache already holds with
// the listed digest is not downloaded again. The snapshot is verified,
// validated and sanitized before anything is written; on any failure the
// cache is as it was.
func Sync(ctx context.Context, opts SyncOptions) (Result, error) {
	res, err := syncRelease(ctx, opts)
	if err != nil && ctx.Err() == context.DeadlineExceeded && !strings.Contains(err.Error(), "timed out") {
		// The deadline may pass anywhere: talking to the Hub (which says
		// so), or opening, reading or writing the cache.
		err = fmt.Errorf("the sync timed out: %w", err)
	}
	return res, err
}

// syncRelease is Sync, without the wording of its deadline.
func syncRelease(ctx context.Context, opts SyncOptions) (Result, error) {
	pick, err := pickRelease(ctx, opts)
	if err != nil {
		return Result{}, err
	}

	// Only open (and so create) the cache now that the Hub has answered;
	// a first sync that fails leaves no cache behind.
	var c *Cache
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	existed := Exists(opts.CacheDir)
	have := ""
	if existed {
		if c, err = OpenWith(ctx, opts.CacheDir, opts.Log, opts.Logics); err != nil {
			return Result{}, err
		}
		res, done, digest, err := c.syncFrom(ctx, opts, pick)
		if err != nil || done {
			return res, err
		}
		have = digest
	}

	// The download goes to the folder its release file will be written
	// to; a sync that fails removes the folders it made.
	dir, undo, err := makeDirs(filepath.Join(opts.CacheDir, releasesDir, opts.Project))
	if err != nil {
		return Result{}, fmt.Errorf("create release folder: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			if !existed && c != nil {
				c.Close()
				c = nil
				removeNewCache(opts.CacheDir)
			}
			undo()
		}
	}()
	f, err := opts.Hub.FetchSnapshot(ctx, opts.Project, pick, have, dir)
	if errors.Is(err, hub.ErrNotModified) {
		res, err := c.syncNotModified(ctx, opts.Project, pick)
		ok = err == nil
		return res, err
	}
	if err != nil {
		return Result{}, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	if c == nil {
		if c, err = OpenWith(ctx, opts.CacheDir, opts.Log, opts.Logics); err != nil {
			return Result{}, err
		}
	}
	res, err := c.syncDownloaded(ctx, opts, pick, f, dir)
	ok = err == nil
	return res, err
}

// pickRelease checks the names a sync is asked for and picks the release
// from the Hub's listing.
func pickRelease(ctx context.Context, opts SyncOptions) (hub.Listing, error) {
	if err := CheckName("project", opts.Project); err != nil {
		return hub.Listing{}, err
	}
	if err := CheckName("environment", opts.Environment); err != nil {
		return hub.Listing{}, err
	}
	if opts.Release != "" {
		if err := CheckName("release id", opts.Release); err != nil {
			return hub.Listing{}, err
		}
	}
	list, err := opts.Hub.ListReleases(ctx, opts.Project, opts.Environment)
	if err != nil {
		return hub.Listing{}, err
	}
	return Pick(list, opts.Project, opts.Environment, opts.Release)
}

// syncFrom looks at what an existing cache holds of the listed release:
// done when it holds it with the listed digest (made current, nothing
// left to do); otherwise have is the digest it holds for the environment,
// for a conditional request ("" for none). What is written is decided
// again under the lock.
func (c *Cache) syncFrom(ctx context.Context, opts SyncOptions, pick hub.Listing) (res Result, done bool, have string, err error) {
	if c.readOnly != nil {
		return Result{}, false, "", c.readOnlyError()
	}
	if res, done, err := c.syncCached(ctx, opts.Project, pick, opts.Environment); err != nil || done {
		return res, done, "", err
	}
	ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: opts.Project, ID: pick.ID})
	switch {
	case err == nil && ri.Environment == opts.Environment:
		have = ri.Digest
	case err == nil:
		// Cached for another environment: nothing to reuse, so no
		// conditional request either; the download will tell.
	case store.ErrorCode(err) != store.NotFound:
		return Result{}, false, "", err
	}
	if err := c.realDirs(opts.Project); err != nil {
		return Result{}, false, "", err
	}
	return Result{}, false, have, nil
}

// syncNotModified makes current the release the Hub says is unchanged.
func (c *Cache) syncNotModified(ctx context.Context, project string, pick hub.Listing) (Result, error) {
	var res Result
	err := c.write(ctx, func() error {
		ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: project, ID: pick.ID})
		if err == nil {
			res, err = c.unchanged(ctx, ri)
		}
		return err
	})
	return res, err
}

// syncDownloaded ingests the downloaded snapshot f under the write lock,
// its release file written in dir, unless another hubsnap stored the
// release meanwhile.
func (c *Cache) syncDownloaded(ctx context.Context, opts SyncOptions, pick hub.Listing, f *os.File, dir string) (Result, error) {
	var res Result
	err := c.write(ctx, func() error {
		if r, done, err := c.cached(ctx, opts.Project, pick, opts.Environment); err != nil || done {
			res = r
			return err
		}
		ri, err := c.ingest(ctx, bufio.NewReaderSize(f, 64<<10), ingest{
			origin:      snapshot.Origin{Source: snapshot.SourceHub, Digest: pick.Digest, SyncedAt: now()},
			tempDir:     dir,
			makeCurrent: true,
			optimize:    true,
			check: func(r snapshot.Release, _ string) error {
				if r.ID != pick.ID || r.Project != opts.Project || r.Environment != opts.Environment {
					return fmt.Errorf("%w: the hub sent release %q of %s/%s when asked for %q of %s/%s; nothing was written",
						errWrongRelease, r.ID, r.Project, r.Environment, pick.ID, opts.Project, opts.Environment)
				}
				return nil
			},
		})
		res = Result{ReleaseInfo: ri}
		return err
	})
	if _, bad := errors.AsType[*snapshot.Error](err); bad {
		return Result{}, fmt.Errorf("release %q from the hub: %w", pick.ID, err)
	}
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// syncCached makes the listed release current when the cache holds it with
// the listed digest already: done reports that nothing is left to do. It
// looks without the lock first, and takes it only when the release seems
// cached.
func (c *Cache) syncCached(ctx context.Context, project string, pick hub.Listing, environment string) (res Result, done bool, err error) {
	ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: project, ID: pick.ID})
	if err != nil || ri.Environment != environment || ri.Digest != pick.Digest {
		return Result{}, false, nil
	}
	err = c.write(ctx, func() error {
		res, done, err = c.cached(ctx, project, pick, environment)
		return err
	})
	return res, done, err
}

// cached is syncCached for a caller holding the write lock.
func (c *Cache) cached(ctx context.Context, project string, pick hub.Listing, environment string) (Result, bool, error) {
	ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: project, ID: pick.ID})
	switch {
	case err == nil && ri.Environment == environment && ri.Digest == pick.Digest:
		res, err := c.unchanged(ctx, ri)
		return res, true, err
	case err == nil || store.ErrorCode(err) == store.NotFound:
		return Result{}, false, nil
	}
	return Result{}, false, err
}

// errWrongRelease marks a document that holds another release than the
// one expected.
var errWrongRelease = errors.New("wrong release")

// removeNewCache removes what opening a new cache folder dir created: the
// index, the lock, the releases folder and dir itself, each only if nothing
// else is in it.
func removeNewCache(dir string) {
	os.Remove(filepath.Join(dir, lockFile))
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", ".checked"} {
		os.Remove(filepath.Join(dir, indexFile+suffix))
	}
	os.Remove(filepath.Join(dir, releasesDir))
	os.Remove(dir)
}

// makeDirs creates the folder dir and its missing parents. undo removes
// those it created, as long as they are empty.
func makeDirs(dir string) (string, func(), error) {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	undo := func() {
		for _, d := range made { // the deepest first
			os.Remove(d)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		undo()
		return "", nil, err
	}
	return dir, undo, nil
}

// unchanged makes an already cached release current. The caller holds the
// write lock.
func (c *Cache) unchanged(ctx context.Context, ri store.ReleaseInfo) (Result, error) {
	ri, err := c.use(ctx, ri.Project, ri.Environment, ri.ID)
	return Result{ReleaseInfo: ri, Unchanged: true}, err
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
