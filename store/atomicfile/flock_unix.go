//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting. held reports that
// another open file holds it; err is errNoLocks where the filesystem has
// no locks.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, nil
	case noLocks(err):
		return false, errNoLocks
	}
	return false, err
}

// lock takes an exclusive flock on f, waiting for it.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil && noLocks(err):
			return errNoLocks
		}
		return err
	}
}

// noLocks tells the errors of a filesystem that has no flock.
func noLocks(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL)
}

// openNoFollow opens path for reading, failing on a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// createNoFollow opens path for writing, creating it (mode perm) if
// needed, failing on a symbolic link.
func createNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, perm)
}
