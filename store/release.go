package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The SQL of releases and current-release pointers.

// Target selects the current release of a project and environment: what
// every tool of the MCP server reads.
type Target struct {
	Project     string
	Environment string
}

// ReleaseKey identifies a cached release.
type ReleaseKey struct {
	Project string
	ID      string
}

// Pointer says which release is current for a project and environment.
type Pointer struct {
	Project     string
	Environment string
	ID          string
}

const selectReleaseInfo = `SELECT r.project, r.release_id, r.environment, r.version, r.created_at, r.synced_at, r.source,
	r.digest, r.table_count, r.logic_count, EXISTS (SELECT 1 FROM current_releases c WHERE c.release = r.id)
FROM releases r`

var (
	qCurrent = readQuery(`SELECT r.id, ` + selectReleaseInfo[len("SELECT "):] + `
JOIN current_releases c ON c.release = r.id WHERE c.project = ? AND c.environment = ?`)
	qCurrentID = readQuery(`SELECT release FROM current_releases WHERE project = ? AND environment = ?`)
	qRelease   = readQuery(selectReleaseInfo + ` WHERE r.project = ? AND r.release_id = ?`)
	qReleases  = readQuery(selectReleaseInfo + ` WHERE ?1 = '' OR r.project = ?1
ORDER BY r.project, r.version DESC, r.release_id`)
	qPointers = readQuery(`SELECT c.project, c.environment, r.release_id
FROM current_releases c JOIN releases r ON r.id = c.release ORDER BY c.project, c.environment`)
	qIndexedFiles = readQuery(`SELECT project, release_id, environment, file_digest, file_size, file_mtime FROM releases`)

	// qReleaseJSON is the release_info answer of the current release of
	// project ?1 and environment ?2: the JSON of mcpserver.ReleaseInfo,
	// with at most 100 other cached releases of the project and
	// environment, newest first (otherReleasesTotal counts them all when
	// there are more), and logicProblems, the logics with problems, when
	// the release's logics are analysed (analysisPending while that runs;
	// neither without a postgres connection: analysis_json.go).
	qReleaseJSON = readQuery(`
SELECT json_insert(json_object('id', r.release_id, 'project', r.project, 'environment', r.environment,
		'version', r.version, 'createdAt', r.created_at, 'syncedAt', r.synced_at,
		'tables', r.table_count, 'logics', r.logic_count,
		'schemaProblems', coalesce((SELECT schema_problems FROM release_checks WHERE release = r.id), 0),
		-- json(): a subquery's value is text, not JSON, to the function
		-- around it.
		'otherReleases', json((
			SELECT json_group_array(json_object('id', o.release_id, 'version', o.version))
			FROM (SELECT release_id, version FROM releases
				WHERE project = r.project AND environment = r.environment AND id <> r.id
				ORDER BY version DESC, release_id DESC LIMIT 100) o))),
	-- json_insert adds nothing at '$', which always exists.
	iif(o.total > 100, '$.otherReleasesTotal', '$'), o.total,
	iif(ra.state = 'done', '$.logicProblems', '$'), ra.logic_problems,
	iif(ra.state = 'pending', '$.analysisPending', '$'), json('true')) AS answer
FROM current_releases c JOIN releases r ON r.id = c.release
	LEFT JOIN release_analysis ra ON ra.release = r.id,
	(SELECT count(*) - 1 AS total FROM releases WHERE project = ?1 AND environment = ?2) o
WHERE c.project = ?1 AND c.environment = ?2`)
)

func scanReleaseInfo(row interface{ Scan(...any) error }) (ReleaseInfo, error) {
	var ri ReleaseInfo
	err := row.Scan(&ri.Project, &ri.ID, &ri.Environment, &ri.Version, &ri.CreatedAt, &ri.SyncedAt, &ri.Source,
		&ri.Digest, &ri.Tables, &ri.Logics, &ri.Current)
	return ri, err
}

// Releases lists the cached releases of project (of every project when
// project is ""), by project, then newest version first.
func (s *Store) Releases(ctx context.Context, project string) ([]ReleaseInfo, error) {
	var out []ReleaseInfo
	err := s.view(ctx, func(tx readTx) error {
		rows, err := tx.query(ctx, qReleases, project)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			ri, err := scanReleaseInfo(rows)
			if err != nil {
				return err
			}
			out = append(out, ri)
		}
		return rows.Err()
	})
	return out, err
}

// ReleaseInfo describes one cached release; NotFound when it is not cached.
func (s *Store) ReleaseInfo(ctx context.Context, key ReleaseKey) (ReleaseInfo, error) {
	var ri ReleaseInfo
	err := s.view(ctx, func(tx readTx) error {
		var err error
		ri, err = scanReleaseInfo(tx.row(ctx, qRelease, key.Project, key.ID))
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "release %q of project %q is not in the cache", key.ID, key.Project)
		}
		return err
	})
	return ri, err
}

// Current describes the current release of t; NoRelease when there is none.
func (s *Store) Current(ctx context.Context, t Target) (ReleaseInfo, error) {
	ctx = bounded(ctx)
	var ri ReleaseInfo
	err := s.view(ctx, func(tx readTx) error {
		var err error
		ri, _, err = current(ctx, tx, t)
		return err
	})
	return ri, err
}

// ReleaseJSON returns the release_info answer for t's current release:
// the JSON of mcpserver.ReleaseInfo.
func (s *Store) ReleaseJSON(ctx context.Context, t Target) ([]byte, error) {
	ctx = bounded(ctx)
	var out []byte
	err := s.view(ctx, func(tx readTx) error {
		err := tx.row(ctx, qReleaseJSON, t.Project, t.Environment).Scan(&out)
		if err == sql.ErrNoRows {
			return noRelease(t)
		}
		return err
	})
	return out, err
}

// Pointers lists the current-release pointers held by the index.
func (s *Store) Pointers(ctx context.Context) ([]Pointer, error) {
	var out []Pointer
	err := s.view(ctx, func(tx readTx) error {
		rows, err := tx.query(ctx, qPointers)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p Pointer
			if err := rows.Scan(&p.Project, &p.Environment, &p.ID); err != nil {
				return err
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	return out, err
}

// IndexedFile is what the index knows of a release file.
type IndexedFile struct {
	FileState
	Environment string // of the release in the file
}

// IndexedFiles returns what the index knows of each release file, by release.
func (s *Store) IndexedFiles(ctx context.Context) (map[ReleaseKey]IndexedFile, error) {
	out := map[ReleaseKey]IndexedFile{}
	err := s.view(ctx, func(tx readTx) error {
		rows, err := tx.query(ctx, qIndexedFiles)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k ReleaseKey
			var f IndexedFile
			if err := rows.Scan(&k.Project, &k.ID, &f.Environment, &f.Digest, &f.Size, &f.MTime); err != nil {
				return err
			}
			out[k] = f
		}
		return rows.Err()
	})
	return out, err
}

// current describes t's current release and returns its row id.
func current(ctx context.Context, tx readTx, t Target) (ReleaseInfo, int64, error) {
	var ri ReleaseInfo
	var id int64
	err := tx.row(ctx, qCurrent, t.Project, t.Environment).Scan(&id, &ri.Project, &ri.ID, &ri.Environment, &ri.Version,
		&ri.CreatedAt, &ri.SyncedAt, &ri.Source, &ri.Digest, &ri.Tables, &ri.Logics, &ri.Current)
	if err == sql.ErrNoRows {
		return ri, 0, noRelease(t)
	}
	return ri, id, err
}

// currentID returns the row id of t's current release.
func currentID(ctx context.Context, tx readTx, t Target) (int64, error) {
	var id int64
	err := tx.row(ctx, qCurrentID, t.Project, t.Environment).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, noRelease(t)
	}
	return id, err
}

func noRelease(t Target) *Error {
	return Errorf(NoRelease, "no current release for project %q, environment %q; run `hubsnap snapshot sync`",
		t.Project, t.Environment)
}

// SetCurrent makes the cached release id current for project and
// environment. It fails with NotFound when the index does not hold the
// release, and WrongEnvironment when the release is of another
// environment.
func (s *Store) SetCurrent(ctx context.Context, project, environment, id string) error {
	c, err := s.BeginSetCurrent(ctx, project, environment, id)
	if err != nil {
		return err
	}
	return c.Commit()
}

// BeginSetCurrent is SetCurrent left uncommitted: the caller writes the
// release's .current pointer, then commits the Change (or rolls it back).
func (s *Store) BeginSetCurrent(ctx context.Context, project, environment, id string) (*Change, error) {
	return s.begin(ctx, "set current release", func(tx *sql.Tx) error {
		var rel int64
		var env string
		err := tx.QueryRowContext(ctx, `SELECT id, environment FROM releases WHERE project = ? AND release_id = ?`,
			project, id).Scan(&rel, &env)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "release %q of project %q is not in the cache", id, project)
		}
		if err != nil {
			return err
		}
		if env != environment {
			return Errorf(WrongEnvironment, "release %q is for environment %q, not %q", id, env, environment)
		}
		return setCurrent(ctx, tx, project, environment, rel)
	})
}

func setCurrent(ctx context.Context, tx *sql.Tx, project, environment string, release int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO current_releases (project, environment, release) VALUES (?, ?, ?)
		ON CONFLICT (project, environment) DO UPDATE SET release = excluded.release`, project, environment, release)
	return err
}

// ReplacePointers makes the index's current-release pointers exactly ps,
// in one transaction. A pointer to a release the index does not hold, or
// to one of another environment, is left out.
func (s *Store) ReplacePointers(ctx context.Context, ps []Pointer) error {
	return s.write(ctx, "update current releases", nil, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM current_releases`); err != nil {
			return err
		}
		for _, p := range ps {
			if _, err := tx.ExecContext(ctx, `INSERT INTO current_releases (project, environment, release)
				SELECT ?, ?, id FROM releases WHERE project = ? AND release_id = ? AND environment = ?`,
				p.Project, p.Environment, p.Project, p.ID, p.Environment); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteRelease removes a release and everything in it from the index. A
// current pointer to it goes too. Deleting a release that is not there is
// not an error.
func (s *Store) DeleteRelease(ctx context.Context, key ReleaseKey) error {
	return s.write(ctx, "delete release "+key.ID, nil, func(tx *sql.Tx) error {
		return deleteRelease(ctx, tx, key)
	})
}

// deleteRelease removes the release key and its rows, if the index has it.
// Each statement removes a range of rows by key: a release's rows have the
// ids of its range (idRange), or its id.
func deleteRelease(ctx context.Context, tx *sql.Tx, key ReleaseKey) error {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM releases WHERE project = ? AND release_id = ?`,
		key.Project, key.ID).Scan(&id)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	lo, hi := idRange(id)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM search WHERE rowid >= ? AND rowid < ?`, []any{lo, hi}},
		{`DELETE FROM search_words WHERE release = ?`, []any{id}},
		{`DELETE FROM search_names WHERE release = ?`, []any{id}},
		{`DELETE FROM columns WHERE table_id >= ? AND table_id < ?`, []any{lo, hi}},
		{`DELETE FROM indexes WHERE table_id >= ? AND table_id < ?`, []any{lo, hi}},
		{`DELETE FROM foreign_keys WHERE release = ?`, []any{id}},
		{`DELETE FROM schema_findings WHERE release = ?`, []any{id}},
		{`DELETE FROM release_checks WHERE release = ?`, []any{id}},
		{`DELETE FROM schema_finding_counts WHERE release = ?`, []any{id}},
		{`DELETE FROM tables WHERE id >= ? AND id < ?`, []any{lo, hi}},
		{`DELETE FROM logic_params WHERE logic_id >= ? AND logic_id < ?`, []any{lo, hi}},
		{`DELETE FROM logic_analysis WHERE logic_id >= ? AND logic_id < ?`, []any{lo, hi}}, // logic_analysis.go
		{`DELETE FROM logic_results WHERE logic_id >= ? AND logic_id < ?`, []any{lo, hi}},
		{`DELETE FROM logic_bindings WHERE logic_id >= ? AND logic_id < ?`, []any{lo, hi}},
		{`DELETE FROM logic_problems WHERE logic_id >= ? AND logic_id < ?`, []any{lo, hi}},
		{`DELETE FROM logic_tables WHERE release = ?`, []any{id}},
		{`DELETE FROM release_analysis WHERE release = ?`, []any{id}},
		{`DELETE FROM logics WHERE id >= ? AND id < ?`, []any{lo, hi}},
		{`DELETE FROM connections WHERE release = ?`, []any{id}},
		{`DELETE FROM current_releases WHERE release = ?`, []any{id}},
		{`DELETE FROM releases WHERE id = ?`, []any{id}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// TouchFile records a new size and modification time for a release file
// whose content is unchanged.
func (s *Store) TouchFile(ctx context.Context, key ReleaseKey, file FileState) error {
	return s.write(ctx, "update release file state", nil, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE releases SET file_size = ?, file_mtime = ? WHERE project = ? AND release_id = ?`,
			file.Size, file.MTime, key.Project, key.ID)
		return err
	})
}

// Row ids. A release's tables, foreign keys and logics get the ids
// release<<32 + n, so everything of one release, its search rows included,
// lies in one id range. A logic's search row is its id + logicRows, which
// keeps it apart from the tables' rows (see migrations/0004_relational.sql).
const (
	idShift     = 32
	logicRows   = 1 << 31 // offset of logics' search rows; also the most tables or logics a release may have
	maxReleases = 1 << 30 // release row ids must stay below this for release<<32 to fit
)

// idRange returns the first and one past the last row id of release.
func idRange(release int64) (lo, hi int64) {
	return release << idShift, (release + 1) << idShift
}

// checkReleaseID fails when release row ids have run out.
func checkReleaseID(id int64) error {
	if id >= maxReleases {
		return fmt.Errorf("the index holds release row %d; no more fit: delete the cache's index.db to renumber", id)
	}
	return nil
}
