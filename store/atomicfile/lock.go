package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Ownership of temp files. A process killed in the middle of a change
// leaves its temp files behind; the next writer removes them at once, and
// must never remove one that a live writer is still using. Process ids are
// reused, and a file's age says nothing of a slow writer, so ownership is
// an flock: CreateTemp locks every temp file it makes, and the lock lives
// as long as the writer keeps the file open, which ends when the process
// does, however it ends. RemoveLeftovers removes only the temp files it can
// lock itself.
//
// Temp files that are not open — the new file WriteTemp made, the old file
// Replace keeps and the file Remove puts aside, until finish is called —
// live only within a change made under the cache's write lock (see Lock),
// whose holder is the only process that calls RemoveLeftovers.

// errNoLocks reports a filesystem without flock.
var errNoLocks = errors.New("the filesystem has no file locks")

// Lock is an exclusive lock held on a lock file: the cache's write lock.
// Every process that changes the cache holds it for the whole change; it
// is released when Unlock is called or the process ends.
type Lock struct {
	f *os.File
}

// ErrBusy is the error of LockFile when another process held the lock
// for the whole wait.
var ErrBusy = errors.New("another hubsnap is changing the cache")

// LockFile takes the exclusive lock on the file at path, creating it (mode
// 0600, never through a symbolic link) if needed. It waits for another
// holder to let go up to wait, then fails with ErrBusy, or until ctx
// ends. Where the filesystem has no locks, the lock is taken at once and
// guards nothing.
func LockFile(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	f, err := createNoFollow(path)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		held, err := tryLock(f)
		switch {
		case errors.Is(err, errNoLocks):
			return &Lock{f: f}, nil
		case err != nil:
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
		case !held:
			return &Lock{f: f}, nil
		case time.Now().After(deadline):
			f.Close()
			return nil, fmt.Errorf("%w: it has held %s for over %s; try again", ErrBusy, path, wait)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error { return l.f.Close() }

// Leftovers is what RemoveLeftovers removed.
type Leftovers struct {
	Files int
	Bytes int64
}

// RemoveLeftovers removes the temp files in dir that no live writer owns:
// those it can lock (see above). Where the filesystem has no locks, it
// removes only those more than an hour older than now. Errors are
// ignored: the next call tries again. Call it holding the cache's write
// lock.
func RemoveLeftovers(dir string, now time.Time) Leftovers {
	var out Leftovers
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if !isTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if n, ok := removeUnowned(path, now); ok {
			out.Files++
			out.Bytes += n
		}
	}
	return out
}

// removeUnowned removes the temp file at path if no live writer owns it,
// and returns its size.
func removeUnowned(path string, now time.Time) (int64, bool) {
	f, err := openNoFollow(path)
	if err != nil {
		return 0, false
	}
	defer f.Close() // after the removal: the lock covers it
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return 0, false
	}
	held, err := tryLock(f)
	switch {
	case errors.Is(err, errNoLocks):
		if now.Sub(info.ModTime()) <= staleAfter {
			return 0, false
		}
	case err != nil || held:
		return 0, false
	}
	// The name may have been given to another file since it was opened.
	if now, err := os.Lstat(path); err != nil || !os.SameFile(now, info) {
		return 0, false
	}
	if os.Remove(path) != nil {
		return 0, false
	}
	return info.Size(), true
}

// own locks the temp file f, just created: it is then owned by this
// process while f is open. It reports false when a cleaner took the file
// in the instant between its creation and the lock: the file is gone.
func own(f *os.File) (bool, error) {
	if err := lock(f); err != nil && !errors.Is(err, errNoLocks) {
		return false, err
	}
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Lstat(f.Name())
	return err == nil && os.SameFile(now, info), nil
}
