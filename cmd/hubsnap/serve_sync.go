package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store"
)

// syncTimeout bounds one background sync, as snapshot sync's --timeout
// does by default.
const syncTimeout = 5 * time.Minute

// backgroundSync is serve --sync-every: indexer.Sync (the code path of
// hubsnap snapshot sync) now and then every interval, one at a time. It
// only writes the cache; the serve process's watcher makes a new release
// live, as it would for a sync in another process. A failed sync leaves
// the cache as it was, so the last good release is still served; it is
// logged (Warn) and tried again at the next tick.
type backgroundSync struct {
	every  time.Duration
	opts   indexer.SyncOptions
	status *slog.Logger // Info for a sync, Warn for a failure
	// serving names the release served now, for the failure line; nil
	// before the cache is open.
	serving func(context.Context) string
}

// newBackgroundSync returns the background sync of opts, or nil without
// --sync-every.
func newBackgroundSync(opts *serveOptions, status, log *slog.Logger) *backgroundSync {
	if opts.SyncEvery == 0 {
		return nil
	}
	return &backgroundSync{every: opts.SyncEvery, status: status, opts: indexer.SyncOptions{
		CacheDir: opts.CacheDir, Hub: opts.Hub, Project: opts.Project, Environment: opts.Environment, Log: log,
	}}
}

// run syncs every b.every until ctx ends, first at once when now is set.
// A time.Ticker drops the ticks that pass during a slow sync, so syncs
// never pile up.
func (b *backgroundSync) run(ctx context.Context, now bool) {
	t := time.NewTicker(b.every)
	defer t.Stop()
	if now {
		b.once(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.once(ctx)
		}
	}
}

// once runs one sync and logs what it did.
func (b *backgroundSync) once(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	start := time.Now()
	res, err := indexer.Sync(sctx, b.opts)
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case err != nil && ctx.Err() != nil:
		// Stopping: not a failure worth a line.
	case err != nil:
		attrs := []any{"err", err, "duration", took, "retry_in", b.every}
		if b.serving != nil {
			attrs = append(attrs, "serving", b.serving(ctx))
		}
		b.status.Warn("background sync failed", attrs...)
	default:
		b.status.Info("background sync", "release", res.ID, "version", res.Version, "unchanged", res.Unchanged,
			"tables", res.Tables, "logics", res.Logics, "duration", took)
	}
	return err
}

// servingID is the id of the release served for target ("none" for none).
func servingID(ctx context.Context, st *store.Store, target store.Target) string {
	ri, err := st.Current(ctx, target)
	if err != nil {
		return "none"
	}
	return ri.ID
}
