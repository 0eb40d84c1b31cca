package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"modernc.org/sqlite"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// Repairing the index in place. A damaged index is rebuilt from the
// release files into a new index in a temp file (Create, then the
// indexer's reconcile), which Restore then copies into the live file with
// SQLite's backup API: page by page, in one write transaction that holds
// the index's write lock like any other write. Other processes keep the
// file open and see the copy as one commit: a reader's snapshot stays as
// it was, the next read sees the whole new index. The file is never
// replaced by a rename, which would leave every other process reading the
// old file (their locks are on its inode).

// Create makes a new, empty index at path, which must not exist or be an
// empty file, with pages of size bytes (0: the size of a new index), and
// opens it.
func Create(ctx context.Context, path string, size int) (*Store, error) {
	InitSQLite()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("create index: %w", err)
	}
	if size == 0 {
		size = pageSize
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create index: %w", err)
	}
	info, err := f.Stat()
	f.Close()
	if err == nil && info.Size() != 0 {
		err = fmt.Errorf("%s is not empty", abs)
	}
	if err != nil {
		return nil, fmt.Errorf("create index: %w", err)
	}
	// The first page is written with the size asked for (and, through the
	// shim, 8 reserved bytes); Open's own page size then changes nothing.
	db, err := sql.Open("sqlite", dsn(abs, "vfs="+cksumvfs.Name))
	if err == nil {
		db.SetMaxOpenConns(1)
		_, err = db.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", size))
		if err == nil {
			_, err = db.ExecContext(ctx, "PRAGMA journal_mode = WAL")
		}
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		removeIndexFiles(abs)
		return nil, classify("create index", err)
	}
	return Open(ctx, abs)
}

// removeIndexFiles removes the index at path and its log, shared memory
// and stamp.
func removeIndexFiles(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", stampSuffix} {
		os.Remove(path + suffix)
	}
}

// RemoveIndex removes an index that no process uses any more (a temp file
// of a rebuild) and the files beside it.
func RemoveIndex(path string) { removeIndexFiles(path) }

// PageSize returns the size of the index's pages.
func (s *Store) PageSize(ctx context.Context) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, "PRAGMA page_size").Scan(&n); err != nil {
		return 0, s.readError(err)
	}
	return n, nil
}

// FilePageSize returns the page size of the index at path, which Open may
// refuse (damaged, without checksums), as far as SQLite can read it.
func FilePageSize(ctx context.Context, path string) (int, error) {
	InitSQLite()
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", dsn(abs, verifyPragmas+"&_pragma=checksum_verification(0)"))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&n); err != nil {
		return 0, classify("read page size", err)
	}
	return n, nil
}

// restorePragmas are those of the connection that writes a restore into
// the index: it waits for other writers as the writer does, and does not
// check the pages it overwrites, which may be the damaged ones.
const restorePragmas = "vfs=" + cksumvfs.Name + "&_pragma=busy_timeout(10000)&_pragma=checksum_verification(0)"

// backuper is what modernc's connection offers for the backup API.
type backuper interface {
	NewBackup(dstURI string) (*sqlite.Backup, error)
}

// Restore replaces everything in the index with the index at src (made by
// Create, and closed), in one write transaction. The pages of src must be
// as large as the index's. A reader sees the old index or the new one,
// never a mix; a reader in another process that meets a damaged page
// before the copy commits gets an error, and the right answer after.
func (s *Store) Restore(ctx context.Context, src string) error {
	if s.readOnly {
		return fmt.Errorf("restore index: %w", ErrDiskFull)
	}
	if err := restore(ctx, s.path, src); err != nil {
		return err
	}
	// The copy is whole: the index is as trusted as a new one. Fold the
	// log, which now holds every page, back into the file.
	s.trusted.Store(true)
	s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	s.restamp()
	return nil
}

// RestoreFile is Restore for the index at path when it cannot be opened
// (Open fails with ErrCorrupt). The next Open checks it whole.
func RestoreFile(ctx context.Context, path, src string) error {
	InitSQLite()
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("restore index: %w", err)
	}
	os.Remove(abs + stampSuffix)
	return restore(ctx, abs, src)
}

// restore copies the index at src into the index at path.
func restore(ctx context.Context, path, src string) error {
	from, err := sql.Open("sqlite", dsn(src, "vfs="+cksumvfs.Name+"&mode=ro"))
	if err != nil {
		return fmt.Errorf("restore index: %w", err)
	}
	defer from.Close()
	conn, err := from.Conn(ctx)
	if err != nil {
		return classify("restore index", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		b, ok := dc.(backuper)
		if !ok {
			return errors.New("the SQLite driver has no backup API")
		}
		bk, err := b.NewBackup(dsn(path, restorePragmas))
		if err != nil {
			return err
		}
		for {
			more, err := bk.Step(-1)
			if err != nil {
				bk.Finish()
				return err
			}
			if !more {
				return bk.Finish()
			}
		}
	})
	if err != nil {
		return classify("restore index", err)
	}
	return nil
}
