package indexer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	Hub         *Hub
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
	if err := CheckName("project", opts.Project); err != nil {
		return Result{}, err
	}
	if err := CheckName("environment", opts.Environment); err != nil {
		return Result{}, err
	}
	if opts.Release != "" {
		if err := CheckName("release id", opts.Release); err != nil {
			return Result{}, err
		}
	}
	list, err := opts.Hub.ListReleases(ctx, opts.Project, opts.Environment)
	if err != nil {
		return Result{}, err
	}
	pick, err := Pick(list, opts.Project, opts.Environment, opts.Release)
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
		if c.readOnly != nil {
			return Result{}, c.readOnlyError()
		}
		if res, done, err := c.syncCached(ctx, opts.Project, pick, opts.Environment); err != nil || done {
			return res, err
		}
		// The digest the cache holds, for a conditional request; what is
		// written is decided again under the lock.
		ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: opts.Project, ID: pick.ID})
		switch {
		case err == nil && ri.Environment == opts.Environment:
			have = ri.Digest
		case err == nil:
			// Cached for another environment: nothing to reuse, so no
			// conditional request either; the download will tell.
		case store.ErrorCode(err) != store.NotFound:
			return Result{}, err
		}
		if err := c.realDirs(opts.Project); err != nil {
			return Result{}, err
		}
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
	if errors.Is(err, ErrNotModified) {
		var res Result
		err := c.write(ctx, func() error {
			ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: opts.Project, ID: pick.ID})
			if err == nil {
				res, err = c.unchanged(ctx, ri)
			}
			return err
		})
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
	var res Result
	err = c.write(ctx, func() error {
		// Another hubsnap may have stored the release meanwhile.
		if r, done, err := c.cached(ctx, opts.Project, pick, opts.Environment); err != nil || done {
			res = r
			return err
		}
		ri, err := c.ingest(ctx, bufio.NewReaderSize(f, 64<<10), ingest{
			origin:      store.Origin{Source: store.SourceHub, Digest: pick.Digest, SyncedAt: now()},
			tempDir:     dir,
			makeCurrent: true,
			optimize:    true,
			check: func(r store.Release, _ string) error {
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
	if _, bad := errors.AsType[*SnapshotError](err); bad {
		return Result{}, fmt.Errorf("release %q from the hub: %w", pick.ID, err)
	}
	if err != nil {
		return Result{}, err
	}
	ok = true
	return res, nil
}

// syncCached makes the listed release current when the cache holds it with
// the listed digest already: done reports that nothing is left to do. It
// looks without the lock first, and takes it only when the release seems
// cached.
func (c *Cache) syncCached(ctx context.Context, project string, pick Listing, environment string) (res Result, done bool, err error) {
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
func (c *Cache) cached(ctx context.Context, project string, pick Listing, environment string) (Result, bool, error) {
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

// Import reads a snapshot file (or standard input for "-") into the cache
// and makes it current for the project and environment it names. The file
// is read once, as a stream: hashed, decoded and written into the cache in
// the same pass.
func Import(ctx context.Context, cacheDir, path string, stdin io.Reader, log *slog.Logger) (Result, error) {
	r, closeFile, err := openSnapshotFile(path, stdin)
	if err != nil {
		return Result{}, err
	}
	defer closeFile()
	c, err := Open(ctx, cacheDir, log)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	if c.readOnly != nil {
		return Result{}, c.readOnlyError()
	}
	// A file the cache holds already (the same bytes) is found by its
	// digest before it is decoded.
	digest := ""
	if f, ok := r.(*limitedReader).r.(*os.File); ok && path != "-" {
		if digest, err = fileDigest(f); err != nil {
			return Result{}, err
		}
	}
	var res Result
	err = c.write(ctx, func() error {
		var err error
		res, err = c.importLocked(ctx, r, digest)
		return err
	})
	if err != nil {
		if _, ok := errors.AsType[*SnapshotError](err); ok {
			return Result{}, fmt.Errorf("%s: %w", path, err)
		}
		return Result{}, err
	}
	return res, nil
}

// importLocked is Import for a caller holding the write lock: r is the
// document, digest its digest when it was known beforehand.
func (c *Cache) importLocked(ctx context.Context, r io.Reader, digest string) (Result, error) {
	if err := c.realDirs(""); err != nil {
		return Result{}, err
	}
	if digest != "" {
		if ri, ok, err := c.cachedImport(ctx, digest); err != nil || ok {
			return Result{ReleaseInfo: ri, Unchanged: ok}, err
		}
	}
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 64<<10)
	var cached store.ReleaseInfo
	ri, err := c.ingest(ctx, br, ingest{
		origin:      store.Origin{Source: store.SourceImport, SyncedAt: now()},
		tempDir:     filepath.Join(c.dir, releasesDir),
		makeCurrent: true,
		optimize:    true,
		digest: func() string {
			io.Copy(io.Discard, br) // nothing is left once decoded: the digest covers it all
			return "sha256:" + hex.EncodeToString(h.Sum(nil))
		},
		check: func(rel store.Release, digest string) error {
			ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: rel.Project, ID: rel.ID})
			if err == nil && ri.Digest == digest && ri.Environment == rel.Environment {
				cached = ri
				return errUnchanged
			}
			return nil
		},
	})
	if errors.Is(err, errUnchanged) {
		return c.unchanged(ctx, cached)
	}
	return Result{ReleaseInfo: ri}, err
}

// fileDigest hashes the rest of f and puts f back where it was.
func fileDigest(f *os.File) (string, error) {
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxImportSize+1)); err != nil {
		return "", fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// cachedImport finds a cached release imported from a document with this
// digest; ok reports whether there is one, which it makes current.
func (c *Cache) cachedImport(ctx context.Context, digest string) (store.ReleaseInfo, bool, error) {
	list, err := c.store.Releases(ctx, "")
	if err != nil {
		return store.ReleaseInfo{}, false, err
	}
	for _, ri := range list {
		if ri.Digest == digest {
			res, err := c.unchanged(ctx, ri)
			return res.ReleaseInfo, err == nil, err
		}
	}
	return store.ReleaseInfo{}, false, nil
}

// maxImportSize caps a snapshot file, like a download.
var maxImportSize int64 = DefaultMaxBodySize

// tooLargeError is the error of a snapshot file found over maxImportSize
// as it is read.
type tooLargeError struct{ what string }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s: over the %s limit", e.what, size(maxImportSize))
}

// openSnapshotFile opens the snapshot file at path, or standard input for
// "-", to be read within maxImportSize.
func openSnapshotFile(path string, stdin io.Reader) (io.Reader, func(), error) {
	if path == "-" {
		return &limitedReader{r: stdin, n: maxImportSize, err: &tooLargeError{"standard input"}}, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err // *PathError names the file
	}
	info, err := f.Stat()
	switch {
	case err != nil:
	case !info.Mode().IsRegular():
		err = fmt.Errorf("%s: not a regular file", path)
	case info.Size() > maxImportSize:
		err = fmt.Errorf("%s: %s, over the %s limit", path, size(info.Size()), size(maxImportSize))
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	// The file may grow as it is read.
	return &limitedReader{r: f, n: maxImportSize, err: &tooLargeError{path}}, func() { f.Close() }, nil
}

// limitedReader reads at most n bytes from r, then fails with err.
type limitedReader struct {
	r   io.Reader
	n   int64
	err error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1] // one byte over tells the limit was passed
	}
	n, err := l.r.Read(p)
	if l.n -= int64(n); l.n < 0 {
		return 0, l.err
	}
	return n, err
}

// unchanged makes an already cached release current. The caller holds the
// write lock.
func (c *Cache) unchanged(ctx context.Context, ri store.ReleaseInfo) (Result, error) {
	ri, err := c.use(ctx, ri.Project, ri.Environment, ri.ID)
	return Result{ReleaseInfo: ri, Unchanged: true}, err
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
