package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// Checking a whole index (hubsnap index verify): every page against its
// checksum, then the b-trees (PRAGMA integrity_check), each on a
// connection of its own, so that no page comes from a cache.

// BadPage is a page that cannot be read as it was written.
type BadPage struct {
	Page  int64  // its number, from 1
	Btree string // the table or index it belongs to, when known
	Err   error  // why it cannot be read
}

// verifyPragmas open a connection that reads every page from the file.
const verifyPragmas = "vfs=" + cksumvfs.Name + "&mode=ro&_pragma=busy_timeout(10000)&_pragma=cache_size(-2048)"

// openChecker opens a read connection of its own on the index.
func (s *Store) openChecker() (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(s.path, verifyPragmas))
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// CheckPages reads every page of the index, free pages included, and
// returns those that fail their checksum or cannot be read. The pages of
// one read transaction are read: a page in the write-ahead log is read
// from there.
func (s *Store) CheckPages(ctx context.Context) ([]BadPage, int64, error) {
	db, err := s.openChecker()
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, 0, classify("check pages", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, 0, classify("check pages", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	var pages int64
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return nil, 0, classify("check pages", err)
	}
	stmt, err := conn.PrepareContext(ctx, "SELECT length(data) FROM sqlite_dbpage WHERE pgno = ?")
	if err != nil {
		return nil, 0, classify("check pages", err)
	}
	defer stmt.Close()
	var bad []BadPage
	for p := int64(1); p <= pages; p++ {
		var n int
		if err := stmt.QueryRowContext(ctx, p).Scan(&n); err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			bad = append(bad, BadPage{Page: p, Err: pageError(err)})
		}
	}
	if len(bad) > 0 {
		s.nameBadPages(ctx, bad)
	}
	return bad, pages, nil
}

// errChecksum is the error of a page that fails its checksum.
var errChecksum = fmt.Errorf("%w: the page fails its checksum", ErrCorrupt)

// pageError is the error of reading one page.
func pageError(err error) error {
	if se, ok := errors.AsType[*sqlite.Error](err); ok && se.Code() == sqlite3.SQLITE_IOERR_DATA {
		return errChecksum
	}
	return classify("read page", err)
}

// nameBadPages names the b-tree of each bad page, as far as the b-trees
// can be walked without the checks.
func (s *Store) nameBadPages(ctx context.Context, bad []BadPage) {
	db, err := sql.Open("sqlite", dsn(s.path, verifyPragmas+"&_pragma=checksum_verification(0)"))
	if err != nil {
		return
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT name, pageno FROM dbstat")
	if err != nil {
		return
	}
	defer rows.Close()
	names := map[int64]string{}
	for rows.Next() {
		var name string
		var page int64
		if rows.Scan(&name, &page) != nil {
			return
		}
		names[page] = name
	}
	for i := range bad {
		bad[i].Btree = names[bad[i].Page]
	}
}

// CheckStructure runs SQLite's integrity_check on the whole index: every
// b-tree, and every index against its table. It returns the problems
// found, at most 100.
func (s *Store) CheckStructure(ctx context.Context) ([]string, error) {
	db, err := s.openChecker()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check(100)")
	if err != nil {
		return nil, classify("check index", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, classify("check index", err)
		}
		if line != "ok" {
			problems = append(problems, strings.TrimSpace(line))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, classify("check index", err)
	}
	return problems, nil
}
