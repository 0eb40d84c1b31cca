package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
)

// How the commands that read the cache find and open it, written once:
// they resolve the cache folder, project and environment (resolveTarget),
// and open the cache without ever creating one (openExisting): a missing
// cache holds no releases.

// resolveTarget resolves the settings of a command that works on the
// cached releases of a project and environment: the cache folder, the
// project and the environment, or a usage error saying how to set the one
// missing.
func (a *app) resolveTarget(cmd *cobra.Command) (cacheDir, project, environment string, err error) {
	s, err := a.resolve(cmd)
	if err != nil {
		return "", "", "", err
	}
	return s.needTarget()
}

// openExisting opens the cache in dir with options open, or returns nil
// when there is none: a command that reads the cache never creates one.
func openExisting(ctx context.Context, dir string, log *slog.Logger, open indexer.OpenOptions) (*indexer.Cache, error) {
	if !indexer.Exists(dir) {
		return nil, nil
	}
	return indexer.OpenWith(ctx, dir, log, open)
}

// openReleases opens the cache in dir for a command that reads the cached
// releases of project and environment; without a cache, none are cached,
// and it says how to fetch one.
func openReleases(ctx context.Context, dir, project, environment string, log *slog.Logger) (*indexer.Cache, error) {
	c, err := openExisting(ctx, dir, log, indexer.OpenOptions{})
	if err == nil && c == nil {
		err = fmt.Errorf("no releases of %s/%s are cached (%s is empty); run `hubsnap snapshot sync`", project, environment, dir)
	}
	return c, err
}
