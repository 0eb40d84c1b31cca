package store

import (
	"context"
	"database/sql"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Reading the analysis rows back (logic_analysis.go writes them). The
// tools compose their answers from these rows by SQL; these functions
// serve `hubsnap index analyze`, the pending state and tests. They are
// not prepared on the read pool (not readQuery): serve's tools do not use
// them, and each prepared statement holds lookaside memory of every read
// connection.

const (
	qAnalysisState = `
SELECT coalesce((SELECT a.state FROM release_analysis a WHERE a.release = r.id), '')
FROM releases r WHERE r.project = ?1 AND r.release_id = ?2`
	qLogicAnalysisHead = `
SELECT l.id, a.statement, a.returns_rows, a.unjudged
FROM releases r JOIN logics l ON l.release = r.id JOIN logic_analysis a ON a.logic_id = l.id
WHERE r.project = ?1 AND r.release_id = ?2 AND l.name = ?3`
	qLogicAnalysisTables   = `SELECT table_name, connection, access FROM logic_tables WHERE logic_id = ? ORDER BY position`
	qLogicAnalysisResults  = `SELECT name, type, nullable, source_table, source_column FROM logic_results WHERE logic_id = ? ORDER BY position`
	qLogicAnalysisBindings = `SELECT param, table_name, column_name FROM logic_bindings WHERE logic_id = ? ORDER BY position`
	qLogicAnalysisProblems = `SELECT code, message, coalesce(sql_position, 0) FROM logic_problems WHERE logic_id = ? ORDER BY position`
)

// AnalysisState says whether the logics of release key are analysed:
// AnalysisDone, AnalysisPending (written by a process that does not parse
// SQL, serve; `hubsnap index analyze` analyses it), or "" when the release
// has no postgres connection and nothing is analysed. NotFound when the
// release is not in the index.
func (s *Store) AnalysisState(ctx context.Context, key ReleaseKey) (string, error) {
	var state string
	err := s.view(bounded(ctx), func(tx readTx) error {
		err := tx.tx.QueryRowContext(ctx, qAnalysisState, key.Project, key.ID).Scan(&state)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "release %q of project %q not found", key.ID, key.Project)
		}
		return err
	})
	return state, err
}

// LogicAnalysis reads back the analysis of logic name of release key, as
// analysis.Analyze returned it; NotFound when the logic has none (the
// release is pending or has no postgres connection) or is not there.
func (s *Store) LogicAnalysis(ctx context.Context, key ReleaseKey, name string) (*snapshot.Analysis, error) {
	ctx = bounded(ctx)
	var a *snapshot.Analysis
	err := s.view(ctx, func(tx readTx) error {
		var id int64
		var returns bool
		res := snapshot.Analysis{Tables: []snapshot.TableAccess{}, Bindings: []snapshot.Binding{}, Problems: []snapshot.Problem{}}
		err := tx.tx.QueryRowContext(ctx, qLogicAnalysisHead, key.Project, key.ID, name).Scan(&id, &res.Statement, &returns, &res.Unjudged)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "no analysis of logic %q", name)
		}
		if err != nil {
			return err
		}
		if returns {
			res.Result = []snapshot.ResultColumn{}
		}
		err = scanRows(ctx, tx, qLogicAnalysisTables, id, func(rows *sql.Rows) error {
			var t snapshot.TableAccess
			err := rows.Scan(&t.Table, &t.Connection, &t.Access)
			res.Tables = append(res.Tables, t)
			return err
		})
		if err != nil {
			return err
		}
		err = scanRows(ctx, tx, qLogicAnalysisResults, id, func(rows *sql.Rows) error {
			var c snapshot.ResultColumn
			var table, column sql.NullString
			err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &table, &column)
			if table.Valid {
				c.Source = &snapshot.ColumnSource{Table: table.String, Column: column.String}
			}
			res.Result = append(res.Result, c)
			return err
		})
		if err != nil {
			return err
		}
		err = scanRows(ctx, tx, qLogicAnalysisBindings, id, func(rows *sql.Rows) error {
			var b snapshot.Binding
			err := rows.Scan(&b.Param, &b.Table, &b.Column)
			res.Bindings = append(res.Bindings, b)
			return err
		})
		if err != nil {
			return err
		}
		err = scanRows(ctx, tx, qLogicAnalysisProblems, id, func(rows *sql.Rows) error {
			var p snapshot.Problem
			err := rows.Scan(&p.Code, &p.Message, &p.Position)
			res.Problems = append(res.Problems, p)
			return err
		})
		a = &res
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// scanRows runs q with arg and calls scan on each row.
func scanRows(ctx context.Context, tx readTx, q string, arg any, scan func(*sql.Rows) error) error {
	rows, err := tx.tx.QueryContext(ctx, q, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
