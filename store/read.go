package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Target selects the current release of a project and environment: what
// every tool of the MCP server reads.
type Target struct {
	Project     string
	Environment string
}

const releaseColumns = `r.project, r.release_id, r.environment, r.version, r.created_at, r.synced_at, r.source,
	r.digest, r.table_count, r.logic_count,
	EXISTS (SELECT 1 FROM current_releases c WHERE c.release = r.id)`

func scanReleaseInfo(row interface{ Scan(...any) error }) (ReleaseInfo, error) {
	var ri ReleaseInfo
	err := row.Scan(&ri.Project, &ri.ID, &ri.Environment, &ri.Version, &ri.CreatedAt, &ri.SyncedAt, &ri.Source,
		&ri.Digest, &ri.Tables, &ri.Logics, &ri.Current)
	return ri, err
}

// The queries of read transactions, prepared once on the read pool when
// the store opens (see readTx).
const (
	qTables             = `SELECT connection, name FROM tables WHERE release = ? ORDER BY connection, name`
	qTablesOfConnection = `SELECT connection, name FROM tables WHERE release = ? AND connection = ? ORDER BY name`
	qTableByName        = `SELECT connection, name, comment, detail FROM tables
		WHERE release = ? AND name = ? ORDER BY connection LIMIT 50`
	qTableByConnection = `SELECT connection, name, comment, detail FROM tables
		WHERE release = ? AND connection = ? AND name = ?`
	qLogics = "SELECT name FROM logics WHERE release = ? ORDER BY name"
	qLogic  = `SELECT id, name, description, sql, auth_required, auth_roles
			FROM logics WHERE release = ? AND name = ?`
	qParams  = "SELECT name, type, required FROM logic_params WHERE logic_id = ? ORDER BY position"
	qCurrent = "SELECT " + releaseColumns + ` FROM releases r
		JOIN current_releases c ON c.release = r.id WHERE c.project = ? AND c.environment = ?`
	qCurrentID        = "SELECT release FROM current_releases WHERE project = ? AND environment = ?"
	qConnectionExists = "SELECT EXISTS (SELECT 1 FROM connections WHERE release = ? AND name = ?)"
)

// readQueries lists them for Open to prepare.
var readQueries = []string{qTables, qTablesOfConnection, qTableByName, qTableByConnection, qLogics, qLogic, qParams, qCurrent, qCurrentID, qConnectionExists,
	qSearchTables, qSearchLogics, qSearchNames, qSearchTable, qSearchLogic, qSearchWords, qSearchColumns, qSearchParams}

// Releases lists the cached releases of project (of every project when
// project is ""), by project, then newest version first.
func (s *Store) Releases(ctx context.Context, project string) ([]ReleaseInfo, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+releaseColumns+` FROM releases r
		WHERE ? = '' OR r.project = ? ORDER BY r.project, r.version DESC, r.release_id`, project, project)
	if err != nil {
		return nil, fmt.Errorf("list releases: %w", err)
	}
	defer rows.Close()
	var out []ReleaseInfo
	for rows.Next() {
		ri, err := scanReleaseInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("list releases: %w", err)
		}
		out = append(out, ri)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list releases: %w", err)
	}
	return out, nil
}

// ReleaseInfo describes one cached release; NotFound when it is not cached.
func (s *Store) ReleaseInfo(ctx context.Context, key ReleaseKey) (ReleaseInfo, error) {
	ri, err := scanReleaseInfo(s.r.QueryRowContext(ctx, "SELECT "+releaseColumns+
		" FROM releases r WHERE r.project = ? AND r.release_id = ?", key.Project, key.ID))
	if err == sql.ErrNoRows {
		return ri, Errorf(NotFound, "release %q of project %q is not in the cache", key.ID, key.Project)
	}
	if err != nil {
		return ri, fmt.Errorf("read release %s: %w", key.ID, err)
	}
	return ri, nil
}

// Current describes the current release of t; NoRelease when there is none.
func (s *Store) Current(ctx context.Context, t Target) (ReleaseInfo, error) {
	var ri ReleaseInfo
	err := s.view(ctx, func(tx readTx) error {
		var err error
		ri, err = current(ctx, tx, t)
		return err
	})
	return ri, err
}

// Pointers lists the current-release pointers held by the index.
func (s *Store) Pointers(ctx context.Context) ([]Pointer, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT c.project, c.environment, r.release_id
		FROM current_releases c JOIN releases r ON r.id = c.release ORDER BY c.project, c.environment`)
	if err != nil {
		return nil, fmt.Errorf("list current releases: %w", err)
	}
	defer rows.Close()
	var out []Pointer
	for rows.Next() {
		var p Pointer
		if err := rows.Scan(&p.Project, &p.Environment, &p.ID); err != nil {
			return nil, fmt.Errorf("list current releases: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// IndexedFile is what the index knows of a release file.
type IndexedFile struct {
	FileState
	Environment string // of the release in the file
}

// IndexedFiles returns what the index knows of each release file, by release.
func (s *Store) IndexedFiles(ctx context.Context) (map[ReleaseKey]IndexedFile, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT project, release_id, environment, file_digest, file_size, file_mtime FROM releases")
	if err != nil {
		return nil, fmt.Errorf("list release files: %w", err)
	}
	defer rows.Close()
	out := map[ReleaseKey]IndexedFile{}
	for rows.Next() {
		var k ReleaseKey
		var f IndexedFile
		if err := rows.Scan(&k.Project, &k.ID, &f.Environment, &f.Digest, &f.Size, &f.MTime); err != nil {
			return nil, fmt.Errorf("list release files: %w", err)
		}
		out[k] = f
	}
	return out, rows.Err()
}

// Tables lists the tables of t's current release, sorted by connection and
// name; only those of connection when it is not "" (NotFound when the
// release has no such connection).
func (s *Store) Tables(ctx context.Context, t Target, connection string) ([]TableRef, error) {
	out := []TableRef{}
	err := s.view(ctx, func(tx readTx) error {
		ri, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		// One statement per shape, so each keeps its index: an OR on a
		// parameter would make SQLite plan for the worse case.
		q, args := qTables, []any{ri}
		if connection != "" {
			q = qTablesOfConnection
			args = append(args, connection)
		}
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r TableRef
			if err := rows.Scan(&r.Connection, &r.Name); err != nil {
				return err
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(out) == 0 && connection != "" {
			// No tables: an unknown connection, or a known one left empty.
			var known bool
			if err := tx.QueryRowContext(ctx, qConnectionExists, ri, connection).Scan(&known); err != nil {
				return err
			}
			if !known {
				return Errorf(NotFound, "connection %q not found", connection)
			}
		}
		return nil
	})
	return out, err
}

// Table returns one table of t's current release with its columns, keys,
// indexes and the foreign keys that point at it. With connection "", the
// name must be unique across connections: Ambiguous lists the qualified
// names otherwise. An unknown table is NotFound.
func (s *Store) Table(ctx context.Context, t Target, connection, name string) (*Table, error) {
	var out *Table
	err := s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		out, err = findTable(ctx, tx, rel, connection, name)
		return err
	})
	return out, err
}

// findTable reads a table and its detail (see detail.go) in one query.
func findTable(ctx context.Context, tx readTx, rel int64, connection, name string) (*Table, error) {
	// A bare name uses tables_by_name, a qualified one the unique key.
	q, args := qTableByName, []any{rel, name}
	if connection != "" {
		q = qTableByConnection
		args = []any{rel, connection, name}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var found []*Table
	for rows.Next() {
		tbl := &Table{}
		// RawBytes: decodeDetail copies out what it keeps, before Next.
		var detail sql.RawBytes
		if err := rows.Scan(&tbl.Connection, &tbl.Name, &tbl.Comment, &detail); err != nil {
			return nil, err
		}
		if len(found) == 0 { // decode the first; a second makes the name ambiguous
			if err := decodeDetail(detail, tbl); err != nil {
				return nil, err
			}
		}
		found = append(found, tbl)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		if connection != "" {
			return nil, Errorf(NotFound, "table %q not found in connection %q", name, connection)
		}
		return nil, Errorf(NotFound, "table %q not found", name)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, tbl := range found {
		names[i] = tbl.Connection + "." + tbl.Name
	}
	return nil, Errorf(Ambiguous, "table %q is in several connections: %s; ask for one of them",
		name, strings.Join(names, ", "))
}

// Logics lists the logic names of t's current release, sorted.
func (s *Store) Logics(ctx context.Context, t Target) ([]string, error) {
	out := []string{}
	err := s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, qLogics, rel)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return err
			}
			out = append(out, name)
		}
		return rows.Err()
	})
	return out, err
}

// Logic returns one logic of t's current release; NotFound when unknown.
func (s *Store) Logic(ctx context.Context, t Target, name string) (*Logic, error) {
	var out *Logic
	err := s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		l := &Logic{}
		var id int64
		var roles string
		err = tx.QueryRowContext(ctx, qLogic, rel, name).
			Scan(&id, &l.Name, &l.Description, &l.SQL, &l.Auth.Required, &roles)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "logic %q not found", name)
		}
		if err != nil {
			return err
		}
		if l.Auth.Roles, err = decodeList(roles); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, qParams, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p Param
			if err := rows.Scan(&p.Name, &p.Type, &p.Required); err != nil {
				return err
			}
			l.Params = append(l.Params, p)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		out = l
		return nil
	})
	return out, err
}

// view runs fn in one read transaction on the read pool, so every query in
// it sees the same committed state.
func (s *Store) view(ctx context.Context, fn func(readTx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	defer tx.Rollback()
	if err := fn(readTx{tx, s}); err != nil {
		if _, ok := errors.AsType[*Error](err); ok {
			return err
		}
		return fmt.Errorf("read index: %w", err)
	}
	return nil
}

func current(ctx context.Context, tx readTx, t Target) (ReleaseInfo, error) {
	ri, err := scanReleaseInfo(tx.QueryRowContext(ctx, qCurrent, t.Project, t.Environment))
	if err == sql.ErrNoRows {
		return ri, noRelease(t)
	}
	return ri, err
}

func currentID(ctx context.Context, tx readTx, t Target) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, qCurrentID,
		t.Project, t.Environment).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, noRelease(t)
	}
	return id, err
}

func noRelease(t Target) *Error {
	return Errorf(NoRelease, "no current release for project %q, environment %q; run `hubsnap snapshot sync`",
		t.Project, t.Environment)
}

// decodeList decodes a JSON array of names written by jsonList.
func decodeList(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("decode name list: %w", err)
	}
	return out, nil
}

// readTx is a read transaction whose queries run as statements prepared
// once on the read pool: the tools' lookups are short, so preparing each
// query every time would cost more than running it. Statements are
// prepared in Open, before any transaction: preparing from inside one
// would need a second pooled connection, and with every connection held by
// a transaction waiting to prepare, nothing would move.
type readTx struct {
	*sql.Tx
	s *Store
}

// QueryContext runs query in the transaction, as its prepared statement
// when it is one of readQueries.
func (r readTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if stmt, ok := r.s.stmts[query]; ok {
		return r.Tx.StmtContext(ctx, stmt).QueryContext(ctx, args...)
	}
	return r.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext is QueryContext for one row.
func (r readTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if stmt, ok := r.s.stmts[query]; ok {
		return r.Tx.StmtContext(ctx, stmt).QueryRowContext(ctx, args...)
	}
	return r.Tx.QueryRowContext(ctx, query, args...)
}

// prepare prepares readQueries on the read pool.
func (s *Store) prepare(ctx context.Context) error {
	s.stmts = make(map[string]*sql.Stmt, len(readQueries))
	for _, q := range readQueries {
		stmt, err := s.r.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare index queries: %w", err)
		}
		s.stmts[q] = stmt
	}
	return nil
}
