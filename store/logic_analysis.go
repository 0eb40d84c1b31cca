package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// How a release writes the analysis of its logics (SPEC §11, migrations/
// 0009_logic_analysis.sql): after its tables and logics are written, in
// its own transaction, the logics are read back one chunk at a time and
// analysed against the release's tables, which analysis.Tables reads from
// the transaction when a logic first names them (txTables): the release
// is never held in memory whole. Without an Analyzer (serve, which never
// parses SQL) the release is marked pending, and AnalyzePending writes
// its rows later.

// Analysis states of a release (release_analysis.state).
const (
	AnalysisDone    = "done"
	AnalysisPending = "pending"
)

const (
	insertLogicAnalysis = `INSERT INTO logic_analysis (logic_id, statement, returns_rows, unjudged, result_count,
		binding_count, problem_count) VALUES (?, ?, ?, ?, ?, ?, ?)`
	insertLogicResult = `INSERT INTO logic_results (logic_id, position, name, type, nullable, source_table, source_column)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
	insertLogicTable = `INSERT INTO logic_tables (release, connection, table_name, logic_id, position, access)
		VALUES (?, ?, ?, ?, ?, ?)`
	insertLogicBinding = `INSERT INTO logic_bindings (logic_id, position, param, table_name, column_name)
		VALUES (?, ?, ?, ?, ?)`
	insertLogicProblem = `INSERT INTO logic_problems (logic_id, position, code, message, sql_position)
		VALUES (?, ?, ?, ?, ?)`
	upsertReleaseAnalysis = `INSERT INTO release_analysis (release, state, logic_problems) VALUES (?, ?, ?)
		ON CONFLICT (release) DO UPDATE SET state = excluded.state, logic_problems = excluded.logic_problems`
)

// analysisBudget bounds the time a release's analysis takes: a release
// of logics the analysis finds slow (tens of thousands of 48 KiB queries,
// each a quarter of a second) would otherwise hold its import for many
// minutes. The logics left when it is spent are not analysed: their rows
// say why (overBudget), and they have no problems, since none is certain.
// Realistic releases are far from it: 10,000 logics take about 1.3 s.
var analysisBudget = 60 * time.Second

// overBudget is the unjudged reason of a logic left when the budget was
// spent.
const overBudget = "not analysed: the release's analysis took longer than its 60 s budget"

// analysisChunk is how many logics are read back and analysed at a time:
// at most 64 x 48 KiB of SQL in memory.
const analysisChunk = 64

// analyzeRelease writes the analysis rows of release (whose tables and
// logics are written in tx) and its release_analysis row: none when it
// has no postgres connection, 'pending' when a is nil and it has logics,
// else 'done'. The tables come from src, or, when it is nil, are read from
// tx (txTables).
func analyzeRelease(ctx context.Context, tx *sql.Tx, release int64, a *analysis.Analyzer, src analysis.TableSource) error {
	conns, postgres, err := releaseConnections(ctx, tx, release)
	if err != nil || !postgres {
		return err
	}
	lo, hi := idRange(release)
	var logics, tables int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM logics WHERE id >= ?1 AND id < ?2),
		(SELECT count(*) FROM tables WHERE id >= ?1 AND id < ?2)`, lo, hi).Scan(&logics, &tables); err != nil {
		return fmt.Errorf("count logics: %w", err)
	}
	if logics > 0 && a == nil {
		_, err := tx.ExecContext(ctx, upsertReleaseAnalysis, release, AnalysisPending, 0)
		return err
	}
	if src == nil {
		txSrc, err := newTxTables(ctx, tx, release)
		if err != nil {
			return err
		}
		defer txSrc.close()
		src = txSrc
	}
	cat := analysis.TablesFrom(conns, tables, src)
	w := newAnalysisWriter(tx, release, nil)
	defer w.close()
	after := lo - 1
	start := time.Now()
	for {
		chunk, err := readLogicChunk(ctx, tx, after, hi)
		if err != nil {
			return err
		}
		if len(chunk) == 0 {
			break
		}
		for _, l := range chunk {
			if time.Since(start) > analysisBudget {
				res := snapshot.Analysis{Statement: snapshot.StatementOther, Unjudged: overBudget}
				if err := w.add(ctx, l.id, &res); err != nil {
					return fmt.Errorf("write analysis of logic %q: %w", l.logic.Name, err)
				}
				continue
			}
			res := a.Analyze(ctx, cat, l.logic)
			if err := cat.Err(); err != nil {
				return fmt.Errorf("read tables for logic %q: %w", l.logic.Name, err)
			}
			if err := ctx.Err(); err != nil {
				return err // a cancelled analysis says unjudged: not a verdict to keep
			}
			if err := w.add(ctx, l.id, &res); err != nil {
				return fmt.Errorf("write analysis of logic %q: %w", l.logic.Name, err)
			}
		}
		after = chunk[len(chunk)-1].id
	}
	if err := w.flush(ctx); err != nil {
		return fmt.Errorf("write analysis: %w", err)
	}
	_, err = tx.ExecContext(ctx, upsertReleaseAnalysis, release, AnalysisDone, w.withProblems)
	return err
}

// releaseConnections returns the connections of release as the analysis
// takes them, and whether one is postgres. A connection without an engine
// (in the index: NULL, also for a connection only named by tables) is not
// postgres: its logics' syntax is not judged, rather than risk a false
// problem.
func releaseConnections(ctx context.Context, tx *sql.Tx, release int64) ([]snapshot.Connection, bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, coalesce(engine, '') FROM connections WHERE release = ? ORDER BY position`, release)
	if err != nil {
		return nil, false, fmt.Errorf("read connections: %w", err)
	}
	defer rows.Close()
	var conns []snapshot.Connection
	postgres := false
	for rows.Next() {
		var c snapshot.Connection
		if err := rows.Scan(&c.Name, &c.Engine); err != nil {
			return nil, false, fmt.Errorf("read connections: %w", err)
		}
		postgres = postgres || analysis.IsPostgres(c.Engine)
		conns = append(conns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read connections: %w", err)
	}
	return conns, postgres, nil
}

// storedLogic is a logic read back for its analysis.
type storedLogic struct {
	id    int64
	logic snapshot.Logic
}

// readLogicChunk reads the next analysisChunk logics with ids in
// (after, hi), with their params.
func readLogicChunk(ctx context.Context, tx *sql.Tx, after, hi int64) ([]storedLogic, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, name, sql FROM logics WHERE id > ? AND id < ? ORDER BY id LIMIT ?`,
		after, hi, analysisChunk)
	if err != nil {
		return nil, fmt.Errorf("read logics: %w", err)
	}
	var out []storedLogic
	for rows.Next() {
		var l storedLogic
		if err := rows.Scan(&l.id, &l.logic.Name, &l.logic.SQL); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read logics: %w", err)
		}
		out = append(out, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return nil, err
	}
	byID := make(map[int64]*storedLogic, len(out))
	for i := range out {
		byID[out[i].id] = &out[i]
	}
	prows, err := tx.QueryContext(ctx, `SELECT logic_id, name, type, required FROM logic_params
		WHERE logic_id >= ? AND logic_id <= ? ORDER BY logic_id, position`, out[0].id, out[len(out)-1].id)
	if err != nil {
		return nil, fmt.Errorf("read params: %w", err)
	}
	defer prows.Close()
	for prows.Next() {
		var id int64
		var p snapshot.Param
		if err := prows.Scan(&id, &p.Name, &p.Type, &p.Required); err != nil {
			return nil, fmt.Errorf("read params: %w", err)
		}
		if l := byID[id]; l != nil {
			l.logic.Params = append(l.logic.Params, p)
		}
	}
	if err := prows.Err(); err != nil {
		return nil, fmt.Errorf("read params: %w", err)
	}
	return out, nil
}

// analysisWriter writes the rows of each logic's analysis in batches.
type analysisWriter struct {
	release                                     int64
	logics, results, tables, bindings, problems *batch
	withProblems                                int64
}

// newAnalysisWriter makes the writer of release's analysis rows in tx,
// whose statements run on pipe (nil: at once).
func newAnalysisWriter(tx *sql.Tx, release int64, pipe *pipeline) *analysisWriter {
	return &analysisWriter{release: release,
		logics: newBatch(tx, insertLogicAnalysis, pipe), results: newBatch(tx, insertLogicResult, pipe),
		tables: newBatch(tx, insertLogicTable, pipe), bindings: newBatch(tx, insertLogicBinding, pipe),
		problems: newBatch(tx, insertLogicProblem, pipe)}
}

func (w *analysisWriter) batches() []*batch {
	return []*batch{w.logics, w.results, w.tables, w.bindings, w.problems}
}

// add queues the rows of logic id's analysis.
func (w *analysisWriter) add(ctx context.Context, id int64, res *snapshot.Analysis) error {
	returns := res.Result != nil
	if err := w.logics.add(ctx, id, res.Statement, returns, res.Unjudged, len(res.Result), len(res.Bindings),
		len(res.Problems)); err != nil {
		return err
	}
	if len(res.Problems) > 0 {
		w.withProblems++
	}
	for i, c := range res.Result {
		var table, column any
		if c.Source != nil {
			table, column = c.Source.Table, c.Source.Column
		}
		if err := w.results.add(ctx, id, i, c.Name, c.Type, c.Nullable, table, column); err != nil {
			return err
		}
	}
	for i, t := range res.Tables {
		if err := w.tables.add(ctx, w.release, t.Connection, t.Table, id, i, t.Access); err != nil {
			return err
		}
	}
	for i, b := range res.Bindings {
		if err := w.bindings.add(ctx, id, i, b.Param, b.Table, b.Column); err != nil {
			return err
		}
	}
	for i, p := range res.Problems {
		var pos any
		if p.Position > 0 {
			pos = p.Position
		}
		if err := w.problems.add(ctx, id, i, p.Code, p.Message, pos); err != nil {
			return err
		}
	}
	return nil
}

func (w *analysisWriter) flush(ctx context.Context) error {
	for _, b := range w.batches() {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (w *analysisWriter) close() {
	for _, b := range w.batches() {
		b.close()
	}
}
