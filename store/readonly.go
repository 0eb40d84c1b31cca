package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// Reading an index this process cannot write. The index may be on a
// read-only mount, belong to another user (a cache baked into a container
// image, or shared by a team), or lie on a full disk, where opening it for
// writing fails because SQLite cannot grow its log and shared-memory
// files. Reading must still work: Open then opens the read pool only, and
// never migrates or writes. Every write fails with the reason (ErrDiskFull,
// or a *ReadOnlyError naming the file and the cause).
//
// How it is opened depends on who else may write it:
//
//   - If the -shm file is there (a hubsnap keeps it, see persist.go), the
//     index is opened read-only (mode=ro) and SQLite reads its log through
//     that file: changes the owner makes while this process reads show as
//     they commit. A cache shared by a team is read this way; it must not
//     be opened immutable, or an owner's write would go unseen, or be read
//     half-done.
//   - If it is not, and no one can write the file (a read-only mount, a full
//     disk), the index is opened immutable: no lock, no log, no shared
//     memory. That is only right when its log is empty.
//   - If it is not, and someone may write the file, it cannot be read
//     safely: the error says so and which command fixes it.
//
// The index must already be at this build's schema; the full check runs
// unless the stamp matches.

// ErrDiskFull reports a write refused because the disk holding the index
// is full.
var ErrDiskFull = errors.New("the disk holding the cache is full: free some space and try again")

// readOnlyPragmas open the index read-only and immutable.
const readOnlyPragmas = "vfs=" + cksumvfs.Name + "&mode=ro&immutable=1&_pragma=temp_store(memory)"

// openReadOnly opens the index at abs for reading only; why says why it
// cannot be written.
func openReadOnly(ctx context.Context, abs string, why error) (*Store, error) {
	pragmas, err := readOnlyMode(abs, why)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	r, err := sql.Open("sqlite", dsn(abs, pragmas))
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s := &Store{path: abs, r: r, readOnly: true, why: why}
	if err := s.openRead(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return s, nil
}

// readOnlyMode picks the pragmas of a read-only index, or says why it
// cannot be read.
func readOnlyMode(abs string, why error) (string, error) {
	fix := fmt.Sprintf("run `hubsnap snapshot list --cache-dir %s` once as a user who can write it", filepath.Dir(abs))
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("the cache has no index %s, and %w: %s", abs, why, fix)
	}
	for _, p := range []string{abs + "-shm", abs + "-wal"} {
		if _, err := os.Stat(p); err == nil {
			if err := access(p, false); err != nil {
				return "", &os.PathError{Op: "read", Path: p, Err: err}
			}
		}
	}
	logged := false
	if wal, err := os.Stat(abs + "-wal"); err == nil && wal.Size() > 0 {
		logged = true
	}
	if _, err := os.Stat(abs + "-shm"); err == nil && !errors.Is(why, ErrDiskFull) {
		return readPragmas, nil
	}
	nobodyWrites := errors.Is(why, ErrDiskFull) || readOnlyFS(filepath.Dir(abs))
	switch {
	case nobodyWrites && logged:
		return "", fmt.Errorf("%w, and the index has changes in its log that cannot be read without writing", why)
	case nobodyWrites:
		return readOnlyPragmas, nil
	case access(filepath.Dir(abs), true) == nil:
		return readPragmas, nil // SQLite makes the -shm file itself
	}
	return "", fmt.Errorf("the index %s cannot be read: SQLite needs %s beside it, which is missing, and %w: %s "+
		"(hubsnap keeps that file from then on)", abs, abs+"-shm", why, fix)
}

// openRead checks the read pool's file: the stamp or the full check, and
// the schema. Then it prepares the queries.
func (s *Store) openRead(ctx context.Context) error {
	if err := s.r.PingContext(ctx); err != nil {
		return classify("open index", err)
	}
	if !s.stampValid() {
		if err := s.checkWith(ctx, s.r); err != nil {
			return err
		}
	}
	files, err := migrationFiles()
	if err != nil {
		return err
	}
	v, err := s.SchemaVersion(ctx)
	switch {
	case err != nil:
		return classify("open index", err)
	case len(files) > 0 && v > files[len(files)-1].version:
		return fmt.Errorf("open index: %w: written by a newer hubsnap (schema version %d, this build knows %d)",
			ErrCorrupt, v, files[len(files)-1].version)
	case len(files) == 0 || v != files[len(files)-1].version:
		if errors.Is(s.why, ErrDiskFull) {
			return fmt.Errorf("open index: %w, and the index must be upgraded first (schema %d)", ErrDiskFull, v)
		}
		return fmt.Errorf("open index: %s must be upgraded to this hubsnap's schema (%d, it is at %d), and %w: "+
			"run `hubsnap snapshot list --cache-dir %s` once as a user who can write it", s.path,
			files[len(files)-1].version, v, s.why, filepath.Dir(s.path))
	}
	return s.prepare(ctx)
}

// ReadOnly reports whether the index was opened read-only: every write
// fails with ReadOnlyReason.
func (s *Store) ReadOnly() bool { return s.readOnly }

// ReadOnlyReason is why the index was opened read-only (ErrDiskFull, or a
// *ReadOnlyError), or nil.
func (s *Store) ReadOnlyReason() error {
	if !s.readOnly {
		return nil
	}
	return s.why
}

// fullDisk tells whether err, an error opening the index, is the disk
// being full.
func fullDisk(abs string, err error) bool {
	return err != nil && diskFull(filepath.Dir(abs))
}
