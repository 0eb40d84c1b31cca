// Package store is hubsnap's domain model and its SQLite index.
//
// The index (index.db in the cache folder) holds every cached release in
// relational form, shaped for the lookups the MCP tools make: a table by name
// and connection, the tables of a connection, the foreign keys pointing at a
// table, a logic by name. It is derived data: package indexer rebuilds it
// from the release files whenever it is missing or corrupt.
//
// A Store has one writer connection and a small pool of read-only
// connections. Every write runs in one immediate transaction, so readers
// (which keep their own WAL snapshot) never see half a release.
//
// All SQL of hubsnap lives in this package.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hubsnap/hubsnap/migrations"
)

// readers is the size of the read-only connection pool.
const readers = 4

// busyTimeout is how long a write waits for another writer (another sync,
// a serve re-indexing) before it gives up. It must match the DSN's.
const busyTimeout = 10 * time.Second

// The pragmas every connection gets. They are built from constants only:
// modernc runs _pragma values as raw SQL.
const (
	writePragmas = "_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	readPragmas  = "mode=ro&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
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

	stmts map[string]*sql.Stmt // read queries prepared on r, by text; fixed after Open
}

// Open opens (creating if needed) the index at path and applies any missing
// migrations. Errors that mean the file is damaged wrap ErrCorrupt.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	// Create a new index readable by its owner only; SQLite gives the -wal
	// and -shm files the same mode. An empty file is a new database to it.
	if f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	w, err := sql.Open("sqlite", dsn(abs, writePragmas))
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	s := &Store{path: abs, w: w}
	if err := s.init(ctx); err != nil {
		w.Close()
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
func (s *Store) init(ctx context.Context) error {
	if err := s.w.PingContext(ctx); err != nil {
		return classify("open index", err)
	}
	if err := s.check(ctx); err != nil {
		return err
	}
	return s.migrate(ctx)
}

// check runs SQLite's quick_check on every ordinary table of the file, and
// so on every b-tree, the FTS5 index's own tables included. It skips the
// FTS5 table itself: since SQLite 3.44, a quick_check of the whole file
// also recomputes the full-text index's checksums, which on a
// 10,000-table release cost more than all the rest (about 60 of 85 ms at
// every start). A damaged page of the full-text index is still found
// here, as a damaged b-tree page of search_data or search_idx.
func (s *Store) check(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'`)
	if err != nil {
		return classify("check index", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return classify("check index", err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return classify("check index", err)
	}
	for _, name := range tables {
		var result string
		if err := s.w.QueryRowContext(ctx, "PRAGMA quick_check("+quoteIdent(name)+")").Scan(&result); err != nil {
			return classify("check index", err)
		}
		if result != "ok" {
			return fmt.Errorf("check index: %w: %s", ErrCorrupt, result)
		}
	}
	return nil
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// classify wraps err, marking the SQLite results that mean a damaged file.
func classify(op string, err error) error {
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%s: %w: %v", op, ErrCorrupt, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%s: the index is busy: another hubsnap has been writing it for over %s; try again (%v)",
				op, busyTimeout, err)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// migrate applies the migrations the file lacks, one transaction each.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
	)`); err != nil {
		return classify("migrate index", err)
	}
	files, err := migrationFiles()
	if err != nil {
		return err
	}
	var newest int
	if err := s.w.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&newest); err != nil {
		return classify("migrate index", err)
	}
	if len(files) > 0 && newest > files[len(files)-1].version {
		return fmt.Errorf("migrate index: %w: written by a newer hubsnap (schema version %d, this build knows %d)",
			ErrCorrupt, newest, files[len(files)-1].version)
	}
	for _, f := range files {
		if f.version <= newest {
			continue
		}
		if err := s.apply(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

type migration struct {
	version int
	name    string
}

// migrationFiles lists the embedded migrations in order.
func migrationFiles() ([]migration, error) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []migration
	for _, name := range names {
		var v int
		if _, err := fmt.Sscanf(name, "%04d_", &v); err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive 4-digit number", name)
		}
		if len(out) > 0 && out[len(out)-1].version == v {
			return nil, fmt.Errorf("migration %s: version %d used twice", name, v)
		}
		out = append(out, migration{version: v, name: name})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}

func (s *Store) apply(ctx context.Context, m migration) error {
	body, err := fs.ReadFile(migrations.FS, m.name)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	tx, err := s.w.BeginTx(ctx, nil) // immediate: holds the write lock
	if err != nil {
		return classify("migration "+m.name, err)
	}
	defer tx.Rollback()
	// Another process opening the same new index may have applied it while
	// this one waited for the lock.
	var done bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)", m.version).Scan(&done); err != nil {
		return classify("migration "+m.name, err)
	}
	if done {
		return nil
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return classify("migration "+m.name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.version, m.name); err != nil {
		return classify("migration "+m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return classify("migration "+m.name, err)
	}
	return nil
}

// Path returns the absolute path of the index file.
func (s *Store) Path() string { return s.path }

// SchemaVersion returns the newest migration applied to the index.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.r.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	return v, err
}

// Optimize refreshes the query planner's statistics and folds the
// write-ahead log back into the database file. Call it after large writes.
func (s *Store) Optimize(ctx context.Context) error {
	// A big release reaches the search index as dozens of segments, and
	// every search would visit each: merge them into one.
	if _, err := s.w.ExecContext(ctx, "INSERT INTO search (search) VALUES ('optimize')"); err != nil {
		return fmt.Errorf("optimize search index: %w", err)
	}
	// 0x10002: analyze tables that never were, not only those that changed
	// a lot since the last time, so a fresh index gets statistics too.
	if _, err := s.w.ExecContext(ctx, "PRAGMA optimize(0x10002)"); err != nil {
		return fmt.Errorf("optimize index: %w", err)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint index: %w", err)
	}
	return nil
}

// Close closes the index. The writer closes last, so SQLite checkpoints the
// log and removes the -wal and -shm files when no other process holds them.
func (s *Store) Close() error {
	var errs []error
	for _, stmt := range s.stmts {
		errs = append(errs, stmt.Close())
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}
