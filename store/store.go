package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// readers is the size of the read-only connection pool.
const readers = 4

// busyTimeout is how long a write waits for another writer (another sync,
// a serve re-indexing) before it gives up. It must match the DSN's.
const busyTimeout = 10 * time.Second

// The pragmas every connection gets. They are built from constants only:
// modernc runs _pragma values as raw SQL.
//
// The writer does not enforce the schema's foreign keys (foreign_keys(0)):
// checking each of the 200,000 child rows of a 10,000-table release against
// its parent cost a tenth of indexing it, and the writer makes every row
// with its parent's id itself (writer.go). Its deletes remove the child
// rows themselves (deleteRelease). The REFERENCES clauses stay, for people
// reading the schema. Its page cache is 16 MiB (the default is 2).
//
// WAL mode is not among them: the page size of a new index must be set
// before anything writes its first page, and modernc runs a DSN's pragmas
// in alphabetical order. Store.init sets both on the writer's one
// connection; WAL mode stays with the file.
const (
	writerCacheKiB = "16384"
	writePragmas   = "vfs=" + cksumvfs.Name + "&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(0)&_pragma=temp_store(memory)&_pragma=cache_size(-" + writerCacheKiB + ")&_pragma=journal_size_limit(67108864)&_txlock=immediate"
	readPragmas    = "vfs=" + cksumvfs.Name + "&mode=ro&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=temp_store(memory)"
)

// ErrCorrupt reports an index file that is not a usable hubsnap index:
// not a database, damaged, or written by a newer hubsnap. The index is
// derived data, so the caller may delete it and rebuild.
var ErrCorrupt = errors.New("index is corrupt")

// Store is the SQLite index of cached releases.
type Store struct {
	path string
	w    *sql.DB // the one writer
	r    *sql.DB // read-only pool

	stmts []*sql.Stmt // every query (see tx.go), prepared on r; fixed after Open

	// trusted says the file was checked, or found as a trusting hubsnap
	// left it, at open, and not found damaged since (see verify.go).
	trusted  atomic.Bool
	checked  bool  // the whole file was checked at open
	readOnly bool  // opened read-only: w is nil (see readonly.go)
	why      error // why it is read-only: ErrDiskFull or a *ReadOnlyError
}

// Open opens (creating if needed) the index at path and applies any missing
// migrations. Errors that mean the file is damaged wrap ErrCorrupt. An
// index this process cannot write is opened read-only (see readonly.go);
// one that is a symbolic link is refused (access.go).
func Open(ctx context.Context, path string) (*Store, error) {
	InitSQLite()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	why, err := checkAccess(abs)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if why == nil && diskFull(filepath.Dir(abs)) {
		why = ErrDiskFull
	}
	if why != nil {
		return openReadOnly(ctx, abs, why)
	}
	// Create a new index readable by its owner only; SQLite gives the -wal
	// and -shm files the same mode. An empty file is a new database to it.
	if f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	w := openWriter(dsn(abs, writePragmas))
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	s := &Store{path: abs, w: w}
	// Whether the file is as a trusting hubsnap left it is judged before
	// SQLite opens it, which may recover or reset its log.
	stamped := s.stampValid()
	if err := s.init(ctx, stamped); err != nil {
		w.Close()
		if fullDisk(abs, err) && !errors.Is(err, ErrCorrupt) {
			return openReadOnly(ctx, abs, ErrDiskFull)
		}
		return nil, err
	}
	// The read pool opens after the writer has put the file in WAL mode.
	r, err := sql.Open("sqlite", dsn(abs, readPragmas))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open index: %w", err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s.r = r
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// pageSize is the page size of a new index, in bytes. SQLite's default,
// 4 KiB, makes a 100,000-table release about 110,000 pages, and each
// page is written to the log and copied into the file with system calls
// of their own; 16 KiB pages take a quarter of the calls.
const pageSize = 16384

// dsn builds a modernc DSN for an absolute path. SQLite decodes %XX in a
// file: URI and treats '?' and '#' as delimiters, so those are escaped.
func dsn(abs, params string) string {
	p := filepath.ToSlash(abs)
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	if !strings.HasPrefix(p, "/") { // Windows: file:/C:/...
		p = "/" + p
	}
	return "file:" + p + "?" + params
}

// init checks that the file is a healthy database and migrates it.
func (s *Store) init(ctx context.Context, stamped bool) error {
	if err := s.w.PingContext(ctx); err != nil {
		return classify("open index", err)
	}
	// page_size does nothing to an index that has pages already; on a new
	// one, journal_mode writes the first page with it. Processes opening a
	// new index at once all ask for the same.
	//
	// SQLite sizes the page cache of a new page size from the old one:
	// 16 MiB of 4 KiB pages would become 64 MiB of 16 KiB ones, so the
	// cache's size is given again.
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size = %d", pageSize), "PRAGMA cache_size = -" + writerCacheKiB} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			return classify("open index", err)
		}
	}
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return classify("open index", err)
	}
	if mode != "wal" {
		return fmt.Errorf("open index: the index is in journal mode %q and cannot be put in WAL mode", mode)
	}
	if err := s.checkChecksums(ctx); err != nil {
		return err
	}
	if err := s.verify(ctx, stamped); err != nil {
		return err
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	s.restamp()
	return nil
}

// classify wraps err, marking the SQLite results that mean a damaged file.
func classify(op string, err error) error {
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		if se.Code() == sqlite3.SQLITE_IOERR_DATA { // a page failed its checksum (store/cksumvfs)
			return fmt.Errorf("%s: %w: a page fails its checksum (%v)", op, ErrCorrupt, err)
		}
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%s: %w: %v", op, ErrCorrupt, err)
		case sqlite3.SQLITE_FULL:
			return fmt.Errorf("%s: %w", op, ErrDiskFull)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%s: the index is busy: another hubsnap has been writing it for over %s; try again (%v)",
				op, busyTimeout, err)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Path returns the absolute path of the index file.
func (s *Store) Path() string { return s.path }

// Optimize refreshes the query planner's statistics and folds the
// write-ahead log back into the database file. Call it after large writes.
func (s *Store) Optimize(ctx context.Context) error {
	if s.readOnly {
		return s.why
	}
	// A big release reaches the search index as dozens of segments, and
	// every search would visit each: merge them into one.
	if _, err := s.w.ExecContext(ctx, "INSERT INTO search (search) VALUES ('optimize')"); err != nil {
		return fmt.Errorf("optimize search index: %w", err)
	}
	if err := s.analyze(ctx); err != nil {
		return fmt.Errorf("optimize index: %w", err)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint index: %w", err)
	}
	s.restamp()
	return nil
}

// analyze refreshes the planner's statistics: sqlite_stat1, the row counts
// of tables and indexes, and not sqlite_stat4. modernc's SQLite is built
// with SQLITE_ENABLE_STAT4, whose samples make a plan depend on the values
// bound to a statement's parameters; SQLite then prepares such a statement
// again every time it is run with new bindings, which turned a 50 µs
// schema_get_table answer into 300 µs. The samples go in the same
// transaction as ANALYZE, which tells every connection to reload the
// statistics once, without them.
func (s *Store) analyze(ctx context.Context) error {
	return s.write(ctx, "analyze index", nil, func(tx *sql.Tx) error {
		// 0x10002: analyze tables that never were, not only those that
		// changed a lot since the last time, so a fresh index gets
		// statistics too. The statistics need not be exact: looking at
		// about a thousand rows of each index rather than all of them
		// takes 15 ms instead of 470 on a 10,000-table release.
		if _, err := tx.ExecContext(ctx, `PRAGMA analysis_limit = 1000`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `PRAGMA optimize(0x10002)`); err != nil {
			return err
		}
		var stat4 bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat4')`).Scan(&stat4); err != nil {
			return err
		}
		if stat4 {
			_, err := tx.ExecContext(ctx, `DELETE FROM sqlite_stat4`)
			return err
		}
		return nil
	})
}

// Close closes the index. The writer closes last, so SQLite checkpoints the
// log and removes the -wal and -shm files when no other process holds them.
func (s *Store) Close() error {
	var errs []error
	for _, stmt := range s.stmts {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	// Closing the last connection folds the log into the file.
	s.restamp()
	return errors.Join(errs...)
}
