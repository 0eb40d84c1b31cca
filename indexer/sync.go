package indexer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
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
}

// Sync fetches a release of a project from the Hub into the cache and makes
// it current for its environment. A release the cache already holds with
// the listed digest is not downloaded again. The snapshot is verified,
// validated and sanitized before anything is written; on any failure the
// cache is as it was.
func Sync(ctx context.Context, opts SyncOptions) (Result, error) {
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

	// Only open (and so create) the cache now that the Hub has answered.
	var c *Cache
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	have := ""
	if Exists(opts.CacheDir) {
		if c, err = Open(ctx, opts.CacheDir, opts.Log); err != nil {
			return Result{}, err
		}
		ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: opts.Project, ID: pick.ID})
		switch {
		case err == nil && ri.Environment != opts.Environment:
			// Cached for another environment: nothing to reuse, so no
			// conditional request either; the download will tell.
		case err == nil && ri.Digest == pick.Digest:
			return c.unchanged(ctx, ri)
		case err == nil:
			have = ri.Digest
		case store.ErrorCode(err) != store.NotFound:
			return Result{}, err
		}
	}

	body, err := opts.Hub.FetchSnapshot(ctx, opts.Project, pick, have)
	if errors.Is(err, ErrNotModified) {
		ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: opts.Project, ID: pick.ID})
		if err != nil {
			return Result{}, err
		}
		return c.unchanged(ctx, ri)
	}
	if err != nil {
		return Result{}, err
	}
	snap, err := Decode(body)
	if err != nil {
		return Result{}, fmt.Errorf("release %q from the hub: %w", pick.ID, err)
	}
	r := snap.Release
	if r.ID != pick.ID || r.Project != opts.Project || r.Environment != opts.Environment {
		return Result{}, fmt.Errorf("the hub sent release %q of %s/%s when asked for %q of %s/%s; nothing was written",
			r.ID, r.Project, r.Environment, pick.ID, opts.Project, opts.Environment)
	}
	snap.Origin = store.Origin{Source: store.SourceHub, Digest: pick.Digest, SyncedAt: now()}

	if c == nil {
		if c, err = Open(ctx, opts.CacheDir, opts.Log); err != nil {
			return Result{}, err
		}
	}
	return c.add(ctx, snap)
}

// Import reads a snapshot file (or standard input for "-") into the cache
// and makes it current for the project and environment it names.
func Import(ctx context.Context, cacheDir, path string, stdin io.Reader, log *slog.Logger) (Result, error) {
	data, err := readSnapshotFile(path, stdin)
	if err != nil {
		return Result{}, err
	}
	snap, err := Decode(data)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, err)
	}
	snap.Origin = store.Origin{Source: store.SourceImport, Digest: digestOf(data), SyncedAt: now()}
	c, err := Open(ctx, cacheDir, log)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: snap.Release.Project, ID: snap.Release.ID})
	if err == nil && ri.Digest == snap.Origin.Digest && ri.Environment == snap.Release.Environment {
		return c.unchanged(ctx, ri)
	}
	return c.add(ctx, snap)
}

func readSnapshotFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, DefaultMaxBodySize+1))
		if err != nil {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		if len(data) > DefaultMaxBodySize {
			return nil, fmt.Errorf("standard input: over the %s limit", size(DefaultMaxBodySize))
		}
		return data, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() > DefaultMaxBodySize {
		return nil, fmt.Errorf("%s: %s, over the %s limit", path, size(info.Size()), size(DefaultMaxBodySize))
	}
	return io.ReadAll(f)
}

// store_ writes snap to the cache, makes it current and describes it.
func (c *Cache) add(ctx context.Context, snap *store.Snapshot) (Result, error) {
	if err := c.put(ctx, snap, true); err != nil {
		return Result{}, err
	}
	ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: snap.Release.Project, ID: snap.Release.ID})
	return Result{ReleaseInfo: ri}, err
}

// unchanged makes an already cached release current.
func (c *Cache) unchanged(ctx context.Context, ri store.ReleaseInfo) (Result, error) {
	ri, err := c.Use(ctx, ri.Project, ri.Environment, ri.ID)
	return Result{ReleaseInfo: ri, Unchanged: true}, err
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
