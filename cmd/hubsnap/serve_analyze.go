package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"

	"github.com/hubsnap/hubsnap/indexer"
)

// serve never parses SQL (SPEC §11: its start-up and memory must not
// change). The releases it indexes (--sync-every, the watcher's
// reconcile, a repair) are written with their logic analysis pending,
// and an analyst runs `hubsnap index analyze` in a child process (this
// same binary) to analyse them, one child at a time; the tools read the
// new rows as soon as the child commits them. See docs/design.md, "Logic
// analysis at index time".

// analyst runs the child that analyses pending releases.
type analyst struct {
	kick     chan struct{} // a child is wanted; holds one request
	cacheDir string
	stderr   io.Writer
	log      *slog.Logger
	// pending counts the releases waiting (serve's own index, read
	// before a child is started); nil: always start one.
	pending func(context.Context) (int, error)
}

func newAnalyst(cacheDir string, stderr io.Writer, log *slog.Logger) *analyst {
	return &analyst{kick: make(chan struct{}, 1), cacheDir: cacheDir, stderr: stderr, log: log}
}

// openOptions are the indexer.OpenOptions of every cache serve opens.
func (a *analyst) openOptions() indexer.OpenOptions {
	return indexer.OpenOptions{NoParse: true, OnPending: a.notify}
}

// notify asks for a child (a release may be pending: serve indexed one,
// or the watcher saw the index change, a repair included). It never blocks:
// requests made while one waits are one request.
func (a *analyst) notify() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// run starts a child for each request until ctx ends; a request made
// while a child runs starts another after it.
func (a *analyst) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.kick:
		}
		if a.pending != nil {
			// Only when serve's index says so: not on a damaged index,
			// which serve's own repairer handles (a child would open it
			// and rebuild it too).
			if n, err := a.pending(ctx); err != nil || n == 0 {
				continue
			}
		}
		if err := a.child(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("analysing the logics of new releases failed; the next hubsnap that parses SQL tries again", "err", err)
		}
	}
}

// child runs `hubsnap index analyze` on the cache and waits for it.
func (a *analyst) child(ctx context.Context) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe, "index", "analyze", "--cache-dir", a.cacheDir)
	cmd.Stdout, cmd.Stderr = io.Discard, a.stderr
	return cmd.Run()
}
