package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions tune Watch. Zero values take the defaults.
type WatchOptions struct {
	// Quiet is how long the folder must be still before a burst of events
	// is acted on (default 250ms).
	Quiet time.Duration
	// MaxWait bounds how long a steady trickle of events can delay the
	// rescan (default 1s). Quiet and MaxWait keep a change visible well
	// within the 2 seconds docs/design.md ("The watcher") promises.
	MaxWait time.Duration
	// Every is the period of the safety-net rescan, for filesystems that
	// send no events (NFS, SMB, FUSE); default 30s.
	Every time.Duration
	// Changed, when set, is called after a rescan that changed the index.
	Changed func()
	// Rescanned, when set, is called after every rescan, with its error.
	// The first comes once the watches are in place: from then on no
	// change is missed.
	Rescanned func(error)
}

func (o *WatchOptions) defaults() {
	if o.Quiet <= 0 {
		o.Quiet = 250 * time.Millisecond
	}
	if o.MaxWait <= 0 {
		o.MaxWait = time.Second
	}
	if o.Every <= 0 {
		o.Every = 30 * time.Second
	}
}

// Watch follows the cache's release files until ctx ends: new, changed and
// removed release files and .current pointers are reconciled into the
// index, so a running server sees them without a restart.
//
// fsnotify is not recursive and loses a watch when its folder is removed,
// so Watch watches the cache folder, releases/ and every project folder,
// adds folders as they appear, and re-adds them after every rescan. Events
// come in bursts (an atomic write is four of them): they are folded into one
// rescan after a quiet period, or after MaxWait at the latest. Temp and dot
// files are ignored. A lost event (ErrEventOverflow) or a re-established
// watch just means a rescan, and a rescan every Every is the safety net.
// A rescan is the cheap check of Cache.refresh: a file this process (or a
// sync in another) already indexed costs a stat; only when the files and
// the index disagree does it take the write lock and reconcile.
func (c *Cache) Watch(ctx context.Context, opts WatchOptions) error {
	opts.defaults()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch the cache: %w", err)
	}
	defer w.Close()

	var (
		quiet   = time.NewTimer(time.Hour)
		maxWait = time.NewTimer(time.Hour)
		every   = time.NewTicker(opts.Every)
		pending = false
	)
	quiet.Stop()
	maxWait.Stop()
	defer every.Stop()
	schedule := func() {
		quiet.Reset(opts.Quiet)
		if !pending {
			pending = true
			maxWait.Reset(opts.MaxWait)
		}
	}
	rescan := func() {
		pending = false
		quiet.Stop()
		maxWait.Stop()
		c.addWatches(w) // folders created or recreated since
		changed, err := c.refresh(ctx, false)
		if err != nil && ctx.Err() == nil {
			c.log.Warn("rescan the cache", "err", err)
		}
		if changed && opts.Changed != nil {
			opts.Changed()
		}
		if opts.Rescanned != nil { // last: a caller woken by it sees all of the rescan
			opts.Rescanned(err)
		}
	}

	// Whatever changed before the watches were in place is caught here.
	rescan()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if c.relevant(ev) {
				schedule()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				c.log.Warn("watch the cache", "err", err)
			}
			schedule() // events may have been lost: look at everything
		case <-quiet.C:
			rescan()
		case <-maxWait.C:
			rescan()
		case <-every.C:
			rescan()
		}
	}
}

// relevant reports whether an event can change what the index holds.
func (c *Cache) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") { // temp files, editors' swap files
		return false
	}
	if filepath.Dir(ev.Name) == c.dir { // in the cache folder: only releases/ matters
		return name == releasesDir
	}
	return true
}

// addWatches watches the cache folder, releases/ and each project folder.
// Adding a watch that exists is harmless; a folder that is gone is skipped.
func (c *Cache) addWatches(w *fsnotify.Watcher) {
	root := filepath.Join(c.dir, releasesDir)
	for _, dir := range []string{c.dir, root} {
		if err := w.Add(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.log.Warn("watch folder", "dir", dir, "err", err)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && ValidName(e.Name()) {
			if err := w.Add(filepath.Join(root, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				c.log.Warn("watch folder", "dir", e.Name(), "err", err)
			}
		}
	}
}
