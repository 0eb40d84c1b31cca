package store

import (
	"context"
	"database/sql"
	"encoding/json"
)

// The logic problems of `hubsnap snapshot check` and release_check (SPEC
// §11): one segment of findings (lint.go), after the schema's, read from
// logic_problems. A finding is {"code","message","logic","position"?},
// by logic in the snapshot's order, each logic's problems in the order
// the analysis found them.

var (
	// qLogicProblemsPage is a page of the problems whose codes are in the
	// JSON array ?4 of the logics with ids below ?3, after the key (?1,
	// ?2) = (logic_id, position): at most ?5, no more than ?6 bytes (but
	// one, when ?7). One range of logic_problems' primary key.
	qLogicProblemsPage = readQuery(`
WITH page AS MATERIALIZED (
	SELECT logic_id, position, j, n, bytes, n <= ?5 AND (bytes <= ?6 OR (n = 1 AND ?7)) AS kept FROM (
		SELECT logic_id, position, j, row_number() OVER w AS n, sum(octet_length(j) + 1) OVER w AS bytes
		FROM (SELECT p.logic_id, p.position, concat('{"code":', json_quote(p.code), ',"message":', json_quote(p.message),
				',"logic":', json_quote(l.name), iif(p.sql_position IS NULL, '', concat(',"position":', p.sql_position)), '}') AS j
			FROM logic_problems p CROSS JOIN logics l ON l.id = p.logic_id
			WHERE (p.logic_id, p.position) > (?1, ?2) AND p.logic_id < ?3
				AND p.code IN (SELECT value FROM json_each(?4))
			ORDER BY p.logic_id, p.position LIMIT ?5 + 1)
		WINDOW w AS (ORDER BY logic_id, position)))
SELECT (SELECT group_concat(j, ',' ORDER BY n) FROM page WHERE kept),
	(SELECT count(*) FROM page WHERE kept),
	coalesce((SELECT max(bytes) FROM page WHERE kept), 0),
	EXISTS (SELECT 1 FROM page WHERE NOT kept),
	(SELECT json_array(logic_id, position) FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last`)

	// qLogicProblemsCount counts the problems whose codes are in the JSON
	// array ?3 of the logics with ids from ?1 to below ?2.
	qLogicProblemsCount = readQuery(`SELECT count(*) FROM logic_problems
WHERE logic_id >= ?1 AND logic_id < ?2 AND code IN (SELECT value FROM json_each(?3))`)

	// qAnalysisPending says whether the analysis of release ?1 is pending.
	qAnalysisPending = readQuery(`SELECT EXISTS (SELECT 1 FROM release_analysis WHERE release = ?1 AND state = 'pending') AS pending`)
)

// logicProblemsPage is a page of the logic problems whose codes are
// codes.
func logicProblemsPage(ctx context.Context, tx readTx, rel int64, codes []string, key []string, limit, budget int, first bool) (segmentPage, error) {
	lo, hi := idRange(rel)
	k := []any{lo, int64(-1)}
	if len(key) > 0 && key[0] != "" {
		var err error
		if k, err = keyInts(key, 2); err != nil {
			return segmentPage{}, err
		}
	}
	list, err := json.Marshal(codes)
	if err != nil {
		return segmentPage{}, err
	}
	return readSegmentPage(ctx, tx, qLogicProblemsPage, k[0], k[1], hi, string(list), limit, budget, first)
}

func logicProblemsCount(ctx context.Context, tx readTx, rel int64, codes []string, _ releaseChecks) (int64, error) {
	lo, hi := idRange(rel)
	list, err := json.Marshal(codes)
	if err != nil {
		return 0, err
	}
	var n int64
	err = tx.row(ctx, qLogicProblemsCount, lo, hi, string(list)).Scan(&n)
	return n, err
}

// analysisPending reports whether release rel's logics are still being
// analysed: their problems are not known yet.
func analysisPending(ctx context.Context, tx readTx, rel int64) (bool, error) {
	var pending bool
	err := tx.row(ctx, qAnalysisPending, rel).Scan(&pending)
	if err == sql.ErrNoRows {
		err = nil
	}
	return pending, err
}
