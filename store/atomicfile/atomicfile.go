package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// perm is the mode of every file this package writes.
const perm = 0o600

// tempMarker is in the name of every temp file, after the leading "." and
// the name of the file it will replace.
const tempMarker = ".part-"

// staleAfter is how old a temp file must be before RemoveLeftovers removes
// it where the filesystem has no locks to tell who owns it.
const staleAfter = time.Hour

// WriteFile replaces the file at path with data: a temp file in the same
// folder, written, fsynced, renamed over path while it is still open (so
// owned, see RemoveLeftovers), then the folder fsynced. The folder must
// exist.
func WriteFile(path string, data []byte) error {
	f, err := CreateTemp(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// CreateTemp creates a new temp file beside path, named as every temp file
// of this package (.NAME.part-*, mode 0600), for a caller that writes it
// bit by bit; Replace puts it in place. The file is locked while it is
// open: RemoveLeftovers never removes it before the caller closes it (or
// dies).
func CreateTemp(path string) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+tempMarker+"*")
		if err != nil {
			return nil, err
		}
		if err := f.Chmod(perm); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		ok, err := own(f)
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("lock temp file: %w", err)
		}
		if ok {
			return f, nil
		}
		f.Close() // a cleaner removed it before the lock: make another
		if attempt == 3 {
			return nil, fmt.Errorf("create a temp file beside %s: removed as soon as made", filepath.Base(path))
		}
	}
}

// WriteTemp writes data to a new temp file beside path (.NAME.part-*, mode
// 0600), fsyncs and closes it, and returns its name: the first phase of a
// two-phase replace (see Replace). Once closed, the file is no longer
// locked: call it holding the cache's write lock (see Lock). On error no
// temp file is left.
func WriteTemp(path string, data []byte) (tmp string, err error) {
	f, err := CreateTemp(path)
	if err != nil {
		return "", err
	}
	tmp = f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// Replace renames tmp (from WriteTemp) to final, the second phase of a
// two-phase replace. When final exists, a hard link (or, where links are
// not possible, a copy) keeps the old file until finish is called:
// finish(true) drops it, finish(false) puts it back, or removes final when
// there was none. Replace does not sync the folder; call SyncDir once the
// renames of a change are done. On error tmp is removed and final is as it
// was.
func Replace(tmp, final string) (finish func(ok bool), err error) {
	backup := ""
	if _, err := os.Lstat(final); err == nil {
		backup = filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+tempMarker+"old-"+randomSuffix())
		if err := os.Link(final, backup); err != nil {
			if err := copyFile(final, backup); err != nil {
				os.Remove(tmp)
				return nil, fmt.Errorf("keep a copy of %s: %w", filepath.Base(final), err)
			}
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if backup != "" {
			os.Remove(backup)
		}
		os.Remove(tmp)
		return nil, err
	}
	return func(ok bool) {
		switch {
		case ok && backup != "":
			os.Remove(backup)
		case !ok && backup != "":
			os.Rename(backup, final)
		case !ok:
			os.Remove(final)
		}
	}, nil
}

// SyncDir makes the renames in dir durable. Not every system can sync a
// folder; where it cannot, SyncDir does nothing.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !strings.Contains(err.Error(), "invalid argument") {
		return err
	}
	return nil
}

// isTemp reports whether name is the name of one of this package's temp
// files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
