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

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// Import reads a snapshot file (or standard input for "-") into the cache
// and makes it current for the project and environment it names. The file
// is read once, as a stream: hashed, decoded and written into the cache in
// the same pass. A file compressed with zstd is read decompressed
// (importInput).
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
	what := path
	if path == "-" {
		what = "standard input"
	}
	r, packed, closeInput, err := importInput(r, what)
	if err != nil {
		return Result{}, err
	}
	defer closeInput()
	if packed {
		digest = "" // a release's digest is its document's, found as it is read
	}
	var res Result
	err = c.write(ctx, func() error {
		var err error
		res, err = c.importLocked(ctx, r, digest)
		return err
	})
	if err != nil {
		if _, ok := errors.AsType[*snapshot.Error](err); ok {
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
		origin:      snapshot.Origin{Source: snapshot.SourceImport, SyncedAt: now()},
		tempDir:     filepath.Join(c.dir, releasesDir),
		makeCurrent: true,
		optimize:    true,
		digest: func() string {
			io.Copy(io.Discard, br) // nothing is left once decoded: the digest covers it all
			return "sha256:" + hex.EncodeToString(h.Sum(nil))
		},
		check: func(rel snapshot.Release, digest string) error {
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
var maxImportSize int64 = hub.DefaultMaxBodySize

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

// size renders a byte count for people (as the Hub client does).
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
