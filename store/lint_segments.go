package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"strconv"
)

// The segments of findings (see lint.go): each page is one statement that
// reads a range of an index from the key after the cursor, composes the
// findings' JSON and keeps as many as fit, as the lists do (qTablesPage).
// A finding is {"code","message","table","connection","column"?}.

var (
	// qStoredFindingsPage is a page of the findings of rule ?2 of release
	// ?1 after the key (?3, ?4, ?5) = (table_id, item, part): at most ?6,
	// no more than ?7 bytes (but one, when ?8). One range of
	// schema_findings' primary key.
	qStoredFindingsPage = readQuery(`
WITH page AS MATERIALIZED (
	SELECT table_id, item, part, j, n, bytes, n <= ?6 AND (bytes <= ?7 OR (n = 1 AND ?8)) AS kept FROM (
		SELECT table_id, item, part, j, row_number() OVER w AS n, sum(octet_length(j) + 1) OVER w AS bytes
		FROM (SELECT f.table_id, f.item, f.part, concat('{"code":', json_quote(f.code), ',"message":', json_quote(f.message),
				',"table":', json_quote(t.name), ',"connection":', json_quote(t.connection),
				iif(f.column_name IS NULL, '', concat(',"column":', json_quote(f.column_name))), '}') AS j
			FROM schema_findings f CROSS JOIN tables t ON t.id = f.table_id
			WHERE f.release = ?1 AND f.rule = ?2 AND (f.table_id, f.item, f.part) > (?3, ?4, ?5)
			ORDER BY f.table_id, f.item, f.part LIMIT ?6 + 1)
		WINDOW w AS (ORDER BY table_id, item, part)))
SELECT (SELECT group_concat(j, ',' ORDER BY n) FROM page WHERE kept),
	(SELECT count(*) FROM page WHERE kept),
	coalesce((SELECT max(bytes) FROM page WHERE kept), 0),
	EXISTS (SELECT 1 FROM page WHERE NOT kept),
	(SELECT json_array(table_id, item, part) FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last`)

	// qStoredFindingsCount is how many findings rule ?2 has in release ?1,
	// as the release wrote it; no row (a release indexed before migration 7
	// and not yet again) is none.
	qStoredFindingsCount = readQuery(`SELECT coalesce((SELECT findings FROM schema_finding_counts WHERE release = ?1 AND rule = ?2), 0) AS findings`)

	// qMissingCommentPage is a page of MISSING_COMMENT for the release
	// whose tables have ids below ?1: its tables and columns whose comment
	// is NULL or blank, in table order, each table before its columns,
	// after the key (?2, ?3) = (table_id, position), the table's own
	// position being -1 (the release's first key is (first id, -2)); at
	// most ?4, no more than ?5 bytes (but one, when ?6). Two ranges, of
	// tables and of columns, each starting at the key, merged in key
	// order.
	qMissingCommentPage = readQuery(`
WITH missing AS (
	SELECT t.id AS table_id, -1 AS position, NULL AS name FROM tables t
	WHERE t.id >= ?2 + (?3 >= -1) AND t.id < ?1
		AND (t.comment IS NULL OR trim(t.comment, ' ' || char(9, 10, 13)) = '')
	UNION ALL
	SELECT c.table_id, c.position, c.name FROM columns c
	WHERE (c.table_id, c.position) > (?2, ?3) AND c.table_id < ?1
		AND (c.comment IS NULL OR trim(c.comment, ' ' || char(9, 10, 13)) = '')
	ORDER BY 1, 2 LIMIT ?4 + 1),
page AS MATERIALIZED (
	SELECT table_id, position, j, n, bytes, n <= ?4 AND (bytes <= ?5 OR (n = 1 AND ?6)) AS kept FROM (
		SELECT table_id, position, j, row_number() OVER w AS n, sum(octet_length(j) + 1) OVER w AS bytes
		FROM (SELECT m.table_id, m.position, concat('{"code":"MISSING_COMMENT","message":',
				iif(m.name IS NULL, '"table has no comment"', '"column has no comment"'),
				',"table":', json_quote(t.name), ',"connection":', json_quote(t.connection),
				iif(m.name IS NULL, '', concat(',"column":', json_quote(m.name))), '}') AS j
			FROM missing m CROSS JOIN tables t ON t.id = m.table_id)
		WINDOW w AS (ORDER BY table_id, position)))
SELECT (SELECT group_concat(j, ',' ORDER BY n) FROM page WHERE kept),
	(SELECT count(*) FROM page WHERE kept),
	coalesce((SELECT max(bytes) FROM page WHERE kept), 0),
	EXISTS (SELECT 1 FROM page WHERE NOT kept),
	(SELECT json_array(table_id, position) FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last`)
)

// storedSegment is the segment of a rule whose findings are rows of
// schema_findings.
func storedSegment(rule int, code string) segment {
	return segment{
		codes: []string{code},
		page: func(ctx context.Context, tx readTx, rel int64, _ []string, key []string, limit, budget int, first bool) (segmentPage, error) {
			k, err := keyInts(key, 3)
			if err != nil {
				return segmentPage{}, err
			}
			return readSegmentPage(ctx, tx, qStoredFindingsPage, rel, rule, k[0], k[1], k[2], limit, budget, first)
		},
		count: func(ctx context.Context, tx readTx, rel int64, _ []string, rc releaseChecks) (int64, error) {
			var n int64
			err := tx.row(ctx, qStoredFindingsCount, rel, rule).Scan(&n)
			return n, err
		},
	}
}

// missingCommentPage is MISSING_COMMENT's page: a table or column without
// a comment (or with a blank one). Never stored: on a large schema most
// columns have none, millions of rows that tables and columns already say.
func missingCommentPage(ctx context.Context, tx readTx, rel int64, _ []string, key []string, limit, budget int, first bool) (segmentPage, error) {
	lo, hi := idRange(rel)
	k := []any{lo, int64(-2)}
	if len(key) > 0 && key[0] != "" {
		var err error
		if k, err = keyInts(key, 2); err != nil {
			return segmentPage{}, err
		}
	}
	return readSegmentPage(ctx, tx, qMissingCommentPage, hi, k[0], k[1], limit, budget, first)
}

// missingCommentCount counts MISSING_COMMENT's findings from the counts
// written with the release: its tables and columns less those with a
// comment.
func missingCommentCount(_ context.Context, _ readTx, _ int64, _ []string, rc releaseChecks) (int64, error) {
	return rc.columns + rc.tables - rc.commented, nil
}

// releaseChecks is a release's row of release_checks.
type releaseChecks struct {
	schemaProblems, columns, commented int64
	tables                             int64 // from the releases row
}

// coverage is the per cent of the release's tables and columns that have
// a comment, to one decimal; 100 when it has none.
func (rc releaseChecks) coverage() float64 {
	all := rc.tables + rc.columns
	if all == 0 {
		return 100
	}
	return math.Round(float64(rc.commented)*1000/float64(all)) / 10
}

var qReleaseChecks = readQuery(`SELECT schema_problems, column_count, commented_count FROM release_checks WHERE release = ?`)

// readReleaseChecks reads the release_checks row of release rel; zeros
// when it has none (a release indexed before migration 7, until it is
// indexed again).
func readReleaseChecks(ctx context.Context, tx readTx, rel int64) (releaseChecks, error) {
	var rc releaseChecks
	err := tx.row(ctx, qReleaseChecks, rel).Scan(&rc.schemaProblems, &rc.columns, &rc.commented)
	if err == sql.ErrNoRows {
		err = nil
	}
	return rc, err
}

// qCheckRelease describes release ?2 of project ?1, with its row id.
var qCheckRelease = readQuery(`SELECT r.id, ` + selectReleaseInfo[len("SELECT "):] + ` WHERE r.project = ? AND r.release_id = ?`)

// checkRelease describes the release a check reads, and returns its row
// id: t's current release, or release id of t's project.
func checkRelease(ctx context.Context, tx readTx, t Target, id string) (ReleaseInfo, int64, error) {
	if id == "" {
		return current(ctx, tx, t)
	}
	var ri ReleaseInfo
	var rel int64
	err := tx.row(ctx, qCheckRelease, t.Project, id).Scan(&rel, &ri.Project, &ri.ID, &ri.Environment, &ri.Version,
		&ri.CreatedAt, &ri.SyncedAt, &ri.Source, &ri.Digest, &ri.Tables, &ri.Logics, &ri.Current)
	if err == sql.ErrNoRows {
		return ri, 0, Errorf(NotFound, "release %q of project %q is not in the cache; fetch it with `hubsnap snapshot sync --release %s`",
			id, t.Project, id)
	}
	return ri, rel, err
}

// readSegmentPage runs a segment's page query, whose one row is the
// findings kept (NULL for none), how many, their bytes, whether more
// follow, and the key of the last one as a JSON array.
func readSegmentPage(ctx context.Context, tx readTx, q *query, args ...any) (segmentPage, error) {
	var p segmentPage
	var last sql.NullString
	if err := tx.row(ctx, q, args...).Scan(&p.items, &p.n, &p.bytes, &p.more, &last); err != nil {
		return p, err
	}
	if last.Valid {
		var key []json.Number
		if err := json.Unmarshal([]byte(last.String), &key); err != nil {
			return p, err
		}
		for _, k := range key {
			p.last = append(p.last, k.String())
		}
	}
	return p, nil
}

// keyInts reads a segment's key of n integers; a missing key is the start
// (-1s, below every key).
func keyInts(key []string, n int) ([]any, error) {
	out := make([]any, n)
	for i := range out {
		out[i] = int64(-1)
		if i < len(key) && key[i] != "" {
			v, err := strconv.ParseInt(key[i], 10, 64)
			if err != nil {
				return nil, Errorf(InvalidArgument, "cursor is not valid: pass nextCursor exactly as a release_check answer gave it, or leave it out to start again")
			}
			out[i] = v
		}
	}
	return out, nil
}
