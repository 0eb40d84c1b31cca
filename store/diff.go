package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/hubsnap/hubsnap/store/answer"
)

// schema_diff: what changed between two cached releases of a project and
// environment.
//
// SQL finds what differs: the tables of the two releases are matched by
// connection and name, the logics by name, and a pair whose digests
// (digest.go) differ has changed; tables and logics on one side only were
// added or removed. That is one indexed pass over each release's tables
// and logics, whatever their columns. Only the changed pairs are then read
// whole, each as one JSON document that SQLite composes (qDiffTableDocs),
// and compared part by part in Go (diff_compare.go): columns by name,
// foreign keys and indexes whole, logics by sql, params, auth and
// description.
//
// Bounds (diff_budget.go): at most Limit entries, counting every added,
// removed and changed table and logic, tables first (by connection and
// name), then logics (by name), so that a cut answer is complete up to the
// first entry it leaves out; and at most diffBytes(Limit) bytes of answer,
// long texts cut around what changed. "more" says something was left out.

// Limits of schema_diff.
const (
	DefaultDiffLimit = 100
	MaxDiffLimit     = 1000
)

// DiffRequest asks for the changes between two cached releases of a
// project and environment.
type DiffRequest struct {
	// From and To are release ids. To defaults to the current release,
	// From to the cached release with the highest version below To's.
	From, To string
	// Limit is the most tables and logics listed: DefaultDiffLimit when 0,
	// at most MaxDiffLimit.
	Limit int
	// Tables and Logics say which parts to compare: those the caller may
	// read. A part left out is absent from the answer.
	Tables, Logics bool
	// Whole lists every change, with every text whole, ignoring Limit: for
	// a person's report (hubsnap snapshot diff), not for a model.
	Whole bool
}

// diffRelease is one side of a diff.
type diffRelease struct {
	row         int64
	ref         answer.ReleaseRef
	environment string
}

var (
	qDiffRelease = readQuery(`SELECT id, release_id, version, environment FROM releases WHERE project = ?1 AND release_id = ?2`)
	qDiffCurrent = readQuery(`SELECT r.id, r.release_id, r.version, r.environment
FROM current_releases c JOIN releases r ON r.id = c.release WHERE c.project = ?1 AND c.environment = ?2`)
	qDiffBefore = readQuery(`SELECT id, release_id, version, environment FROM releases
WHERE project = ?1 AND environment = ?2 AND version < ?3 ORDER BY version DESC, release_id DESC LIMIT 1`)

	// qDiffTables lists the tables that differ between releases ?1 (from)
	// and ?2 (to): connection, name, and the row id in each release (NULL
	// where the table is not), at most ?3, by connection and name. A
	// digest NULL on either side (a row indexed before digests existed)
	// counts as a difference, to be compared in full.
	qDiffTables = readQuery(`
SELECT connection, name, from_id, to_id FROM (
	SELECT b.connection, b.name, a.id AS from_id, b.id AS to_id
	FROM tables b LEFT JOIN tables a ON a.release = ?1 AND a.connection = b.connection AND a.name = b.name
	WHERE b.release = ?2 AND (a.id IS NULL OR a.digest IS NULL OR b.digest IS NULL OR a.digest <> b.digest)
	UNION ALL
	SELECT a.connection, a.name, a.id, NULL FROM tables a
	WHERE a.release = ?1
		AND NOT EXISTS (SELECT 1 FROM tables b WHERE b.release = ?2 AND b.connection = a.connection AND b.name = a.name))
ORDER BY connection, name LIMIT ?3`)

	// qDiffLogics is qDiffTables for logics: name and the two row ids.
	qDiffLogics = readQuery(`
SELECT name, from_id, to_id FROM (
	SELECT b.name, a.id AS from_id, b.id AS to_id
	FROM logics b LEFT JOIN logics a ON a.release = ?1 AND a.name = b.name
	WHERE b.release = ?2 AND (a.id IS NULL OR a.digest IS NULL OR b.digest IS NULL OR a.digest <> b.digest)
	UNION ALL
	SELECT a.name, a.id, NULL FROM logics a
	WHERE a.release = ?1 AND NOT EXISTS (SELECT 1 FROM logics b WHERE b.release = ?2 AND b.name = a.name))
ORDER BY name LIMIT ?3`)

	// qDiffTableDocs composes, for each table id of the JSON array ?1, the
	// document of what schema_diff compares (tableDoc): the comment ("" for
	// none), the columns in order as schema_get_table shows them, the
	// primary key's column names in key order, and the foreign keys and
	// indexes in order, in the schema_get_table shape.
	qDiffTableDocs = readQuery(`
SELECT t.id, '{"comment":' || json_quote(coalesce(t.comment, ''))
	|| ',"columns":[' || coalesce((
		SELECT group_concat(json, ',') FROM (SELECT json FROM columns WHERE table_id = t.id ORDER BY position)), '') || ']'
	|| ',"primaryKey":' || (
		SELECT json_group_array(name) FROM (SELECT name FROM columns WHERE table_id = t.id AND pk_position IS NOT NULL ORDER BY pk_position))
	|| ',"foreignKeys":[' || coalesce((
		SELECT group_concat(json, ',') FROM (SELECT json FROM foreign_keys WHERE table_id = t.id ORDER BY position)), '') || ']'
	|| ',"indexes":[' || coalesce((
		SELECT group_concat(json, ',') FROM (SELECT json FROM indexes WHERE table_id = t.id ORDER BY position)), '') || ']}' AS doc
FROM json_each(?1) j CROSS JOIN tables t ON t.id = j.value`)

	// qDiffLogicDocs composes, for each logic id of the JSON array ?1, the
	// document of what schema_diff compares (logicDoc), as logic_get shows
	// it, with description "" for none.
	qDiffLogicDocs = readQuery(`
SELECT l.id, '{"description":' || json_quote(coalesce(l.description, '')) || ',"sql":' || json_quote(l.sql)
	|| ',"params":[' || coalesce((
		SELECT group_concat('{"name":' || json_quote(p.name) || ',"type":' || json_quote(p.type)
			|| ',"required":' || iif(p.required, 'true', 'false') || '}', ',' ORDER BY p.position)
		FROM logic_params p WHERE p.logic_id = l.id), '') || ']'
	|| ',"auth":{"required":' || iif(l.auth_required, 'true', 'false') || ',"roles":' || l.auth_roles || '}}' AS doc
FROM json_each(?1) j CROSS JOIN logics l ON l.id = j.value`)
)

// Diff answers schema_diff for t. A release that is not cached is
// NotFound, naming the command that fetches it; one of another environment
// is WrongEnvironment; no release older than To's is NotFound; no current
// release, when To is left out, NoRelease.
func (s *Store) Diff(ctx context.Context, t Target, req DiffRequest) (*answer.DiffOutput, error) {
	limit := cmp.Or(req.Limit, DefaultDiffLimit)
	if req.Whole {
		limit = -1 // SQLite: no limit
	} else if limit < 1 || limit > MaxDiffLimit {
		return nil, Errorf(InvalidArgument, "limit must be between 1 and %d, got %d", MaxDiffLimit, req.Limit)
	}
	var out *answer.DiffOutput
	err := s.view(ctx, func(tx readTx) error {
		from, to, err := diffReleases(ctx, tx, t, req)
		if err != nil {
			return err
		}
		d := newDiffWriter(from, to, limit, req.Whole)
		if req.Logics {
			if err := d.readBroken(ctx, tx); err != nil { // first: it has its own room
				return err
			}
		}
		if req.Tables {
			if err := d.tables(ctx, tx); err != nil {
				return err
			}
		}
		if req.Logics {
			if err := d.logics(ctx, tx); err != nil {
				return err
			}
			d.addBroken()
		}
		out = &d.ans
		return nil
	})
	return out, err
}

// DiffJSON is Diff as the JSON of its answer; <, > and & stay as they
// are.
func (s *Store) DiffJSON(ctx context.Context, t Target, req DiffRequest) ([]byte, error) {
	d, err := s.Diff(ctx, t, req)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("diff answer: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// diffReleases resolves the two releases of a request.
func diffReleases(ctx context.Context, tx readTx, t Target, req DiffRequest) (from, to diffRelease, err error) {
	scan := func(row *sql.Row) (diffRelease, error) {
		var r diffRelease
		err := row.Scan(&r.row, &r.ref.ID, &r.ref.Version, &r.environment)
		return r, err
	}
	named := func(id string) (diffRelease, error) {
		r, err := scan(tx.row(ctx, qDiffRelease, t.Project, id))
		switch {
		case err == sql.ErrNoRows:
			return r, Errorf(NotFound, "release %q of project %q is not in the cache; fetch it with `hubsnap snapshot sync --release %s`",
				id, t.Project, id)
		case err == nil && r.environment != t.Environment:
			return r, Errorf(WrongEnvironment, "release %q is of environment %q, not %q: a diff compares the releases of one environment",
				id, r.environment, t.Environment)
		}
		return r, err
	}
	if req.To == "" {
		to, err = scan(tx.row(ctx, qDiffCurrent, t.Project, t.Environment))
		if err == sql.ErrNoRows {
			err = noRelease(t)
		}
	} else {
		to, err = named(req.To)
	}
	if err != nil {
		return from, to, err
	}
	if req.From != "" {
		from, err = named(req.From)
		return from, to, err
	}
	from, err = scan(tx.row(ctx, qDiffBefore, t.Project, t.Environment, to.ref.Version))
	if err == sql.ErrNoRows {
		err = Errorf(NotFound, "no release older than %s (version %d) is cached for %s/%s; fetch one with `hubsnap snapshot sync --release ID`",
			to.ref.ID, to.ref.Version, t.Project, t.Environment)
	}
	return from, to, err
}

// A diffEntry is a table or logic that differs: from or to is 0 where it
// is not.
type diffEntry struct {
	connection, name string
	from, to         int64
}

// entries runs qDiffTables or qDiffLogics.
func entries(ctx context.Context, tx readTx, q *query, tables bool, args ...any) ([]diffEntry, error) {
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []diffEntry
	for rows.Next() {
		var e diffEntry
		var from, to sql.NullInt64
		var err error
		if tables {
			err = rows.Scan(&e.connection, &e.name, &from, &to)
		} else {
			err = rows.Scan(&e.name, &from, &to)
		}
		if err != nil {
			return nil, err
		}
		e.from, e.to = from.Int64, to.Int64
		out = append(out, e)
	}
	return out, rows.Err()
}

// docs reads the documents of the changed entries' rows on both sides,
// by row id, decoded into T.
func docs[T any](ctx context.Context, tx readTx, q *query, es []diffEntry) (map[int64]*T, error) {
	var ids []int64
	for _, e := range es {
		if e.from != 0 && e.to != 0 {
			ids = append(ids, e.from, e.to)
		}
	}
	out := map[int64]*T{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := tx.query(ctx, q, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var doc sql.RawBytes
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		v := new(T)
		if err := json.Unmarshal(doc, v); err != nil {
			return nil, fmt.Errorf("diff: document of row %d: %w", id, err)
		}
		out[id] = v
	}
	return out, rows.Err()
}
