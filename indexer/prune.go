package indexer

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// PruneResult is what Cache.Prune did, newest release first in each list.
type PruneResult struct {
	Removed []store.ReleaseInfo
	Kept    []store.ReleaseInfo
}

// Prune deletes all but the newest keep cached releases of project and
// environment (by version, then release id), and never the current one,
// which is kept besides them. Each release goes in one index transaction
// whose hook removes its file (store.PruneRelease): file and rows go
// together or not at all, and a release that a .current file names is
// refused even if the index has not seen that file yet. keep must be at
// least 1. Releases of other environments are untouched. It holds the
// write lock throughout.
func (c *Cache) Prune(ctx context.Context, project, environment string, keep int) (PruneResult, error) {
	var res PruneResult
	for _, n := range [][2]string{{"project", project}, {"environment", environment}} {
		if err := CheckName(n[0], n[1]); err != nil {
			return res, err
		}
	}
	if keep < 1 {
		return res, store.Errorf(store.InvalidArgument, "keep at least 1 release, not %d", keep)
	}
	err := c.write(ctx, func() error {
		var err error
		res, err = c.prune(ctx, project, environment, keep)
		return err
	})
	return res, err
}

// prune is Prune for a caller holding the write lock.
func (c *Cache) prune(ctx context.Context, project, environment string, keep int) (PruneResult, error) {
	var res PruneResult
	if err := c.realDirs(project); err != nil {
		return res, err
	}
	all, err := c.store.Releases(ctx, project)
	if err != nil {
		return res, err
	}
	list := slices.DeleteFunc(all, func(ri store.ReleaseInfo) bool { return ri.Environment != environment })
	slices.SortFunc(list, func(a, b store.ReleaseInfo) int {
		return cmp.Or(cmp.Compare(b.Version, a.Version), cmp.Compare(b.ID, a.ID))
	})
	for i, ri := range list {
		if i < keep || ri.Current || c.pointsAt(project, environment, ri.ID) {
			res.Kept = append(res.Kept, ri)
			continue
		}
		if err := c.pruneRelease(ctx, ri); err != nil {
			return res, err
		}
		res.Removed = append(res.Removed, ri)
	}
	if len(res.Removed) > 0 {
		if err := c.store.Optimize(ctx); err != nil {
			c.log.Debug("optimize index", "err", err)
		}
	}
	return res, nil
}

// pruneRelease removes one release: its index rows, and in the same
// transaction its file (removed before the commit, put back if the commit
// fails).
func (c *Cache) pruneRelease(ctx context.Context, ri store.ReleaseInfo) error {
	dir := c.projectDir(ri.Project)
	c.log.Info("pruning release", "project", ri.Project, "release", ri.ID, "version", ri.Version)
	ch, err := c.store.BeginPrune(ctx, store.ReleaseKey{Project: ri.Project, ID: ri.ID})
	if err != nil {
		return err
	}
	defer ch.Rollback()
	if c.pointsAt(ri.Project, ri.Environment, ri.ID) {
		return store.Errorf(store.InvalidArgument, "release %q is current; it is never pruned", ri.ID)
	}
	var undo []func(bool) // both forms of its file (release_codec.go)
	finish := func(ok bool) {
		for _, f := range undo {
			f(ok)
		}
	}
	for _, ext := range releaseForms {
		f, err := atomicfile.Remove(c.releaseFile(ri.Project, ri.ID, ext))
		if err != nil {
			finish(false)
			return fmt.Errorf("remove release %s: %w", ri.ID, err)
		}
		undo = append(undo, f)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		finish(false)
		return fmt.Errorf("sync release folder: %w", err)
	}
	err = ch.Commit()
	finish(err == nil)
	atomicfile.SyncDir(dir)
	return err
}
