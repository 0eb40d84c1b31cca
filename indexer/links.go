package indexer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Symbolic links. The cache folder's own path is resolved once, when the
// cache is opened (cacheRoot): ~/.cache may well be a link. Inside it,
// hubsnap follows no link and writes through none: releases/, a project
// folder, a release file or a .current file that is a link makes a change
// fail with an error naming it, before anything is written; the reconcile
// skips it, with a warning, as it skips any file that is not a release.
// The index and its -wal, -shm and stamp files are refused by store.Open
// in the same way. Temp files are made with O_EXCL and never follow one.

// errReadOnlyFS is the error of a write to a read-only filesystem.
var errReadOnlyFS error = syscall.EROFS

// linkError is the error of a change that would write through a link.
type linkError struct{ path string }

func (e *linkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link: hubsnap never writes through a link inside its cache; remove it "+
		"(or set the cache folder to where it leads)", e.path)
}

// realDir fails when path exists and is not a folder, or is a link. A
// missing path is fine: it is made as a folder.
func realDir(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.Mode()&os.ModeSymlink != 0:
		return &linkError{path}
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder", path)
	}
	return nil
}

// realFile fails when path exists and is not a regular file, or is a
// link. A missing path is fine.
func realFile(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.Mode()&os.ModeSymlink != 0:
		return &linkError{path}
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// realDirs checks releases/ and, when project is not "", its folder, before
// a change writes in them.
func (c *Cache) realDirs(project string) error {
	dirs := []string{filepath.Join(c.dir, releasesDir)}
	if project != "" {
		dirs = append(dirs, c.projectDir(project))
	}
	for _, d := range dirs {
		if err := realDir(d); err != nil {
			return err
		}
	}
	return nil
}
