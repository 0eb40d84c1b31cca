package store

import (
	"context"
	"database/sql"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The SQL of logics and their parameters: how a release writes them, and
// the answers that read them.

const (
	insertLogic = `INSERT INTO logics (id, release, name, description, sql, auth_required, auth_roles, position, digest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertParam = `INSERT INTO logic_params (logic_id, position, name, type, required)
		VALUES (?, ?, ?, ?, ?)`
)

var (
	// qLogicJSON is the logic_get answer for logic ?2 of release ?1: the
	// JSON of answer.Logic, written whole by SQLite (see qTableJSON).
	qLogicJSON = readQuery(`
SELECT '{"name":' || json_quote(l.name)
	|| iif(l.description IS NULL, '', ',"description":' || json_quote(l.description))
	|| ',"sql":' || json_quote(l.sql)
	|| ',"params":[' || coalesce((
		SELECT group_concat('{"name":' || json_quote(p.name) || ',"type":' || json_quote(p.type)
			|| ',"required":' || iif(p.required, 'true', 'false') || '}', ',' ORDER BY p.position)
		FROM logic_params p WHERE p.logic_id = l.id), '') || ']'
	|| ',"auth":{"required":' || iif(l.auth_required, 'true', 'false') || ',"roles":' || l.auth_roles || '}}' AS answer
FROM logics l
WHERE l.release = ?1 AND l.name = ?2`)

	// qLogicsPage is a page of logic_list: the JSON array of the logic
	// names after ?2, sorted, at most ?3 of them and no more than fit in ?4
	// bytes (but always one), whether more follow, and the last name given
	// (see qTablesPage).
	qLogicsPage = readQuery(`
WITH page AS MATERIALIZED (
	SELECT name, item, n, n <= ?3 AND (bytes <= ?4 OR n = 1) AS kept FROM (
		SELECT name, item, row_number() OVER w AS n, sum(octet_length(item) + 1) OVER w AS bytes
		FROM (SELECT name, json_quote(name) AS item FROM logics
			WHERE release = ?1 AND name > ?2 ORDER BY name LIMIT ?3 + 1)
		WINDOW w AS (ORDER BY name)))
SELECT '[' || coalesce((SELECT group_concat(item, ',' ORDER BY n) FROM page WHERE kept), '') || ']' AS names,
	EXISTS (SELECT 1 FROM page WHERE NOT kept) AS more,
	(SELECT name FROM page WHERE kept ORDER BY n DESC LIMIT 1) AS last`)
)

// qCompleteLogics completes logic names (see qCompleteTables).
var qCompleteLogics = readQuery(`
SELECT l.name FROM current_releases cr JOIN logics l ON l.release = cr.release
WHERE cr.project = ?1 AND cr.environment = ?2 AND l.name >= ?3 AND l.name < ?4
ORDER BY l.name LIMIT ?5`)

// CompleteLogics returns the logic names of t's current release that
// start with prefix, sorted, at most MaxCompletions, and whether there
// are more.
func (s *Store) CompleteLogics(ctx context.Context, t Target, prefix string) ([]string, bool, error) {
	return s.complete(ctx, qCompleteLogics, t, prefix)
}

// qLogicCut composes the cut logic_get answer for logic ?2 of release ?1,
// when the whole one would pass AnswerBudget: the description cut to
// 4 KiB and the SQL to 45 KiB of JSON text (json_quote_cut), the params
// that fit in 8 KiB (paramsTotal counts them all) and the roles that fit
// in 2 KiB (auth.rolesTotal), with "truncated": true: at most 61 KiB.
// The SQL is cut to ?3 bytes: 46,080 (45 KiB), or cutAnalysisSQL for a
// logic with an analysis, to make room for it (LogicJSON).
var qLogicCut = readQuery(`
WITH l AS MATERIALIZED (SELECT * FROM logics WHERE release = ?1 AND name = ?2),
ps AS MATERIALIZED (
	SELECT item, sum(octet_length(item) + 1) OVER (ORDER BY position) AS bytes FROM (
		SELECT p.position, '{"name":' || json_quote(p.name) || ',"type":' || json_quote(p.type)
			|| ',"required":' || iif(p.required, 'true', 'false') || '}' AS item
		FROM logic_params p, l WHERE p.logic_id = l.id)),
roles AS MATERIALIZED (
	SELECT r.value, sum(octet_length(json_quote(r.value)) + 1) OVER (ORDER BY r.key) AS bytes
	FROM l, json_each(l.auth_roles) r)
SELECT '{"name":' || json_quote(l.name)
	|| iif(l.description IS NULL, '', ',"description":' || json_quote_cut(l.description, 4096))
	|| ',"sql":' || json_quote_cut(l.sql, ?3)
	|| ',"params":[' || coalesce((SELECT group_concat(item, ',') FROM ps WHERE bytes <= 8192), '') || ']'
	|| coalesce((SELECT ',"paramsTotal":' || count(*) FROM ps HAVING max(bytes) > 8192), '')
	|| ',"auth":{"required":' || iif(l.auth_required, 'true', 'false')
	|| ',"roles":' || coalesce((SELECT json_group_array(value) FROM roles WHERE bytes <= 2048), '[]')
	|| coalesce((SELECT ',"rolesTotal":' || count(*) FROM roles HAVING max(bytes) > 2048), '') || '}'
	|| ',"truncated":true}' AS answer
FROM l`)

// LogicJSON returns the logic_get answer for a logic of t's current
// release, as the JSON of answer.Logic; NotFound when unknown. Its
// analysis (qLogicAnalysis) ends the answer. An answer longer than
// AnswerBudget is cut (see qLogicCut), with the analysis's cut shares.
func (s *Store) LogicJSON(ctx context.Context, t Target, name string) ([]byte, error) {
	ctx = bounded(ctx)
	var out []byte
	err := s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		err = tx.row(ctx, qLogicJSON, rel, name).Scan(&out)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "logic %q not found", name)
		}
		if err != nil {
			return err
		}
		member, err := logicAnalysisMember(ctx, tx, rel, name, wholeAnalysis)
		if err != nil {
			return err
		}
		if len(out)+len(member) > AnswerBudget {
			sqlCut := 46080
			if len(member) > 0 {
				if member, err = logicAnalysisMember(ctx, tx, rel, name, cutAnalysis); err != nil {
					return err
				}
				sqlCut = cutAnalysisSQL
			}
			if err = tx.row(ctx, qLogicCut, rel, name, sqlCut).Scan(&out); err != nil {
				return err
			}
		}
		out = spliceMember(out, member)
		return nil
	})
	return out, err
}

// LogicsPage returns a page of logic_list for t's current release: the
// JSON of mcpserver.ListLogicsOutput.
func (s *Store) LogicsPage(ctx context.Context, t Target, p PageRequest) ([]byte, error) {
	ctx = bounded(ctx)
	limit, err := p.limit()
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.view(ctx, func(tx readTx) error {
		ri, rel, err := current(ctx, tx, t)
		if err != nil {
			return err
		}
		after, err := decodeCursor(p.Cursor, "logics", ri, 1)
		if err != nil {
			return err
		}
		var items []byte
		var more bool
		var last sql.NullString
		if err := tx.row(ctx, qLogicsPage, rel, after[0], limit, pageBudget(limit)).Scan(&items, &more, &last); err != nil {
			return err
		}
		next := ""
		if more {
			next = cursor{list: "logics", release: releaseTag(ri), key: []string{last.String}}.encode()
		}
		out = pageJSON("logics", items, int64(ri.Logics), next)
		return nil
	})
	return out, err
}

// writeLogic inserts logic l of a release, with id, through the writer's
// batches.
func (w *ReleaseWriter) writeLogic(ctx context.Context, id int64, pos int, l *snapshot.Logic) error {
	if err := w.logics.add(ctx, id, w.release, l.Name, nullString(l.Description), l.SQL, l.Auth.Required,
		jsonList(l.Auth.Roles), pos, logicDigest(l)); err != nil {
		return err
	}
	for i, p := range l.Params {
		if err := w.params.add(ctx, id, i, p.Name, p.Type, p.Required); err != nil {
			return err
		}
	}
	return nil
}
