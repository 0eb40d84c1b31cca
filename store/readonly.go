package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Reading a full disk. Opening the index for writing creates its log and
// shared-memory files, which a full disk refuses (SQLITE_IOERR_SHMSIZE);
// yet the index can still be read. When the disk is full and the index's
// log is empty (every change is in the file itself), Open opens it
// read-only and immutable: no lock, no log, no shared memory, nothing to
// write. Reads answer as usual; a write fails with ErrDiskFull in plain
// words. A hubsnap that writes the index while this one reads it would go
// unseen, but on a full disk no write can succeed.

// ErrDiskFull reports a write refused because the disk holding the index
// is full.
var ErrDiskFull = errors.New("the disk holding the cache is full: free some space and try again")

// readOnlyPragmas open the index read-only and immutable.
const readOnlyPragmas = "vfs=" + checksumVFSName + "&mode=ro&immutable=1&_pragma=temp_store(memory)"

// openReadOnly opens the index at abs for reading only, on a full disk.
func openReadOnly(ctx context.Context, abs string) (*Store, error) {
	if wal, err := os.Stat(abs + "-wal"); err == nil && wal.Size() > 0 {
		return nil, fmt.Errorf("open index: %w, and the index has changes in its log that cannot be read without writing", ErrDiskFull)
	}
	r, err := sql.Open("sqlite", dsn(abs, readOnlyPragmas))
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s := &Store{path: abs, r: r, readOnly: true}
	if err := r.PingContext(ctx); err != nil {
		r.Close()
		return nil, classify("open index", err)
	}
	if !s.stampValid() {
		if err := s.checkWith(ctx, r); err != nil {
			r.Close()
			return nil, err
		}
	}
	files, err := migrationFiles()
	if err != nil {
		r.Close()
		return nil, err
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil || len(files) == 0 || v != files[len(files)-1].version {
		r.Close()
		return nil, fmt.Errorf("open index: %w, and the index must be upgraded first (schema %d)", ErrDiskFull, v)
	}
	if err := s.prepare(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return s, nil
}

// ReadOnly reports whether the index was opened read-only, on a full disk:
// every write fails with ErrDiskFull.
func (s *Store) ReadOnly() bool { return s.readOnly }

// fullDisk tells whether err, an error opening the index, is the disk
// being full.
func fullDisk(abs string, err error) bool {
	return err != nil && diskFull(filepath.Dir(abs))
}
