package store

import (
	"context"
	"database/sql"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/answer"
)

// schema_diff's logics.broken (SPEC §11): the logics of the newer release
// that have problems they did not have in the older one, or are new with
// problems, each with its new problems. A problem is new when the older
// release's logic of the same name has none of the same code and message
// (positions move with any edit of the SQL, so they are not compared).
// An older release without analysis rows (no postgres connection) gives
// every problem of the newer one as new.
//
// broken is read before the tables and logics and has its own bounds, so
// that what the newer release breaks shows even when the rest of the diff
// is cut: at most brokenBytes(limit) bytes and, per logic,
// maxBrokenProblems problems (problemsTotal counts them all);
// logics.brokenTotal counts the broken logics when some were left out.
// While either release's analysis is pending, logics.analysisPending is
// set instead.

// maxBrokenProblems is how many new problems of one logic a bounded
// answer lists.
const maxBrokenProblems = 10

// brokenBytes is the most bytes of logics.broken in an answer of limit
// entries: a sixth of diffBytes.
func brokenBytes(limit int) int { return diffBytes(limit) / 6 }

var (
	// qDiffAnalysis is the analysis state of releases ?1 and ?2 (NULL:
	// not analysed, no postgres connection).
	qDiffAnalysis = readQuery(`SELECT (SELECT state FROM release_analysis WHERE release = ?1),
	(SELECT state FROM release_analysis WHERE release = ?2)`)

	// qDiffBroken lists the new problems of the logics of release ?2,
	// whose ids are from ?3 to below ?4, against release ?1: logic name,
	// code, message, position, by name and then the problems' order.
	qDiffBroken = readQuery(`
SELECT l.name, p.code, p.message, p.sql_position
FROM logic_problems p CROSS JOIN logics l ON l.id = p.logic_id
WHERE p.logic_id >= ?3 AND p.logic_id < ?4
	AND NOT EXISTS (SELECT 1 FROM logics a CROSS JOIN logic_problems q ON q.logic_id = a.id
		WHERE a.release = ?1 AND a.name = l.name AND q.code = p.code AND q.message = p.message)
ORDER BY l.name, p.position`)
)

// brokenPart is logics.broken as read, before it joins the answer.
type brokenPart struct {
	logics  []answer.BrokenLogic
	total   int // broken logics, listed or not
	pending bool
	read    bool // the newer release is analysed: the part is given
}

// readBroken reads logics.broken and takes its room from the answer's.
func (d *diffWriter) readBroken(ctx context.Context, tx readTx) error {
	var fromState, toState sql.NullString
	if err := tx.row(ctx, qDiffAnalysis, d.from, d.to).Scan(&fromState, &toState); err != nil {
		return err
	}
	b := &d.broken
	switch {
	case !toState.Valid:
		return nil
	case toState.String == "pending" || fromState.String == "pending":
		b.pending = true
		return nil
	}
	b.read = true
	lo, hi := idRange(d.to)
	rows, err := tx.query(ctx, qDiffBroken, d.from, d.to, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	room := brokenBytes(d.limit)
	full := false
	var cur *answer.BrokenLogic
	for rows.Next() {
		var name string
		var p snapshot.Problem
		var pos sql.NullInt64
		if err := rows.Scan(&name, &p.Code, &p.Message, &pos); err != nil {
			return err
		}
		p.Position = int(pos.Int64)
		if cur == nil || cur.Name != name {
			b.total++
			cur = nil
			if !full {
				b.logics = append(b.logics, answer.BrokenLogic{Name: name})
				cur = &b.logics[len(b.logics)-1]
			}
		}
		if cur == nil {
			continue
		}
		cur.ProblemsTotal++
		if d.whole {
			cur.Problems = append(cur.Problems, p)
			continue
		}
		size := jsonSize(p) + 1
		if len(cur.Problems) == 0 {
			size += jsonSize(answer.BrokenLogic{Name: name}) + 1
		}
		switch {
		case len(cur.Problems) == 0 && size > room:
			b.logics, cur, full = b.logics[:len(b.logics)-1], nil, true
		case len(cur.Problems) < maxBrokenProblems && size <= room:
			cur.Problems = append(cur.Problems, p)
			room -= size
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range b.logics {
		if b.logics[i].ProblemsTotal == len(b.logics[i].Problems) {
			b.logics[i].ProblemsTotal = 0
		}
	}
	d.room -= brokenBytes(d.limit) - room
	return nil
}

// addBroken puts logics.broken into the answer.
func (d *diffWriter) addBroken() {
	if d.ans.Logics == nil {
		return
	}
	b := &d.broken
	d.ans.Logics.AnalysisPending = b.pending
	d.ans.Logics.Broken = b.logics
	if b.total > len(b.logics) {
		d.ans.Logics.BrokenTotal = b.total
	}
}
