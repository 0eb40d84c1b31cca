package indexer

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

// staleAfter is how old a leftover temp file must be before it is removed.
// A live temp file exists for well under a second, so this leaves any
// concurrent writer alone.
const staleAfter = time.Hour

// tempMarker is in the name of every temp file hubsnap writes in the cache.
// Temp names also start with ".", so they never look like release files.
const tempMarker = ".part-"

// writeTemp writes data to a new temp file in dir, named after base, syncs
// and closes it, and returns its path.
func writeTemp(dir, base string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+tempMarker+"*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// replace renames tmp to final. When final exists, a hard link keeps the old
// file so finish(false) can put it back; finish(true) drops that link.
func replace(tmp, final string) (finish func(ok bool), err error) {
	backup := ""
	if _, err := os.Lstat(final); err == nil {
		backup = filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+tempMarker+"old-"+randomSuffix())
		if err := os.Link(final, backup); err != nil {
			if err := copyFile(final, backup); err != nil {
				return nil, fmt.Errorf("keep a copy of %s: %w", filepath.Base(final), err)
			}
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if backup != "" {
			os.Remove(backup)
		}
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

// writeAtomic replaces the file at path with data: a temp file in the same
// folder, fsync, rename. It returns replace's finish.
func writeAtomic(path string, data []byte) (finish func(ok bool), err error) {
	tmp, err := writeTemp(filepath.Dir(path), filepath.Base(path), data)
	if err != nil {
		return nil, err
	}
	finish, err = replace(tmp, path)
	if err != nil {
		os.Remove(tmp)
	}
	return finish, err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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

// syncDir makes the renames in dir durable. Not every system can sync a
// folder; where it cannot, this does nothing.
func syncDir(dir string) error {
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

// removeStale removes temp files left in dir by a process that died.
func removeStale(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !isTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleAfter {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
