package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hubsnap/hubsnap/indexer"
)

// Repairing the index while serving (docs/design.md, "A damaged index").
// A call that meets a damaged page answers INTERNAL, and mcpserver tells
// the repairer (Options.OnDamage); it rebuilds the index from the release
// files in the background and copies it into the index file
// (indexer.Cache.Repair), one repair at a time, while calls go on: each
// answers right or INTERNAL until the copy commits, and right after.

// Timing of the repairs.
const (
	// repairQuiet: damage told within this long after a repair ended was
	// met by a call that read before the repair committed.
	repairQuiet = 2 * time.Second
	// repairBackoff: after a failed repair, the next one waits this long.
	repairBackoff = time.Minute
)

// repairer repairs the index of c when told of damage.
type repairer struct {
	c    *indexer.Cache
	log  *slog.Logger
	wake chan struct{}
}

func newRepairer(c *indexer.Cache, log *slog.Logger) *repairer {
	return &repairer{c: c, log: log, wake: make(chan struct{}, 1)}
}

// damaged asks for a repair; it never blocks.
func (r *repairer) damaged(error) {
	select {
	case r.wake <- struct{}{}:
	default: // one is asked for already
	}
}

// run repairs, one repair at a time, until ctx ends.
func (r *repairer) run(ctx context.Context) {
	var ended time.Time
	var wait time.Duration
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		if time.Since(ended) < wait {
			continue
		}
		r.log.Warn("a call met a damaged index: rebuilding it from the release files in the background")
		start := time.Now()
		err := r.c.Repair(ctx)
		ended = time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.log.Error("the index could not be repaired: calls that read damaged pages answer INTERNAL; "+
				"run `hubsnap index verify --repair`", "err", err, "retry", repairBackoff)
			wait = repairBackoff
			continue
		}
		wait = repairQuiet
		r.log.Info("repaired the index from the release files", "took", ended.Sub(start).Round(time.Millisecond))
	}
}
