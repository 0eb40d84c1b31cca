package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Before SQLite touches the index, Open looks at its files itself:
//
//   - A symbolic link in place of index.db, its -wal, -shm or -journal
//     file or its stamp is refused: SQLite would follow it and migrate
//     and fill whatever database it leads to.
//   - An index.db this user cannot read is an error naming the file and
//     the cause ("permission denied"), not SQLite's "unable to open
//     database file (14)".
//   - An index this user cannot write (a read-only mount, another user's
//     cache) is opened read-only (readonly.go), with the reason kept.

// ErrReadOnly reports a write refused because this process cannot write
// the index.
var ErrReadOnly = errors.New("the index is read-only")

// ReadOnlyError says which file of the index this process cannot write,
// and why. It matches ErrReadOnly and its cause.
type ReadOnlyError struct {
	Path string
	Err  error
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("this hubsnap cannot write %s (%v)", e.Path, e.Err)
}

// Unwrap returns ErrReadOnly and the cause.
func (e *ReadOnlyError) Unwrap() []error { return []error{ErrReadOnly, e.Err} }

// indexSuffixes are the files of the index, after its own name.
var indexSuffixes = []string{"", "-wal", "-shm", "-journal", stampSuffix}

// checkAccess checks the files of the index at abs. It returns why this
// process cannot write them (nil when it can), or an error when it cannot
// use them at all.
func checkAccess(abs string) (readOnly, err error) {
	for _, suffix := range indexSuffixes {
		info, err := os.Lstat(abs + suffix)
		if err == nil && info.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: hubsnap never follows links inside its cache; remove it "+
				"(the index is rebuilt from the release files)", abs+suffix)
		}
	}
	dir := filepath.Dir(abs)
	if _, err := os.Lstat(abs); err == nil {
		if err := access(abs, false); err != nil {
			return nil, &os.PathError{Op: "read", Path: abs, Err: err}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// The folder, for the -wal, -shm and stamp files; the files that
	// exist, for themselves.
	for _, p := range []string{dir, abs, abs + "-wal", abs + "-shm"} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := access(p, true); err != nil {
			return &ReadOnlyError{Path: p, Err: err}, nil
		}
	}
	return nil, nil
}
