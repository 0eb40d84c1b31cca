package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/migrations"
)

// check runs SQLite's quick_check on every ordinary table of the file, and
// so on every b-tree, the FTS5 index's own tables included. It skips the
// FTS5 table itself: since SQLite 3.44, a quick_check of the whole file
// also recomputes the full-text index's checksums, which on a
// 10,000-table release cost more than all the rest (about 60 of 85 ms at
// every start). A damaged page of the full-text index is still found
// here, as a damaged b-tree page of search_data or search_idx.
func (s *Store) check(ctx context.Context) error { return s.checkWith(ctx, s.w) }

// checkWith runs the check on db.
func (s *Store) checkWith(ctx context.Context, pool *sql.DB) error {
	// One read transaction, so that every statement sees the same tables:
	// another process opening a new index may be migrating it meanwhile,
	// and a table listed first could be gone by its turn.
	db, err := pool.Conn(ctx)
	if err != nil {
		return classify("check index", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "BEGIN"); err != nil { // deferred: a read
		return classify("check index", err)
	}
	defer db.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'`)
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
		if err := db.QueryRowContext(ctx, "PRAGMA quick_check("+quoteIdent(name)+")").Scan(&result); err != nil {
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

// SchemaVersion returns the newest migration applied to the index.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.r.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	return v, err
}
