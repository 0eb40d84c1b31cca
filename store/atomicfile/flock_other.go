//go:build !unix

package atomicfile

import "os"

// Without flock, no temp file is known to be owned: RemoveLeftovers falls
// back on their age, and the cache lock is not enforced.

func tryLock(*os.File) (bool, error) { return false, errNoLocks }

func lock(*os.File) error { return errNoLocks }

func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

func createNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
}
