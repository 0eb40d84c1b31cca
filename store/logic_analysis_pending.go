package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

// A release is pending when the process that indexed it does not parse SQL
// (serve), or when the index was made before migration 9. AnalyzePending
// analyses such releases from their rows, one write transaction each.

// PendingAnalyses returns how many releases wait for the analysis of their
// logics.
func (s *Store) PendingAnalyses(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM release_analysis WHERE state = 'pending'`).Scan(&n)
	if err != nil {
		return 0, s.readError(err)
	}
	return n, nil
}

// AnalyzePending analyses the logics of every pending release with a and
// marks it done, one release per write transaction (a reader sees a
// release pending or whole), and returns how many it analysed. A release
// another process analysed meanwhile is left as it is.
func (s *Store) AnalyzePending(ctx context.Context, a *analysis.Analyzer) (int, error) {
	if a == nil {
		return 0, errors.New("analyse pending releases: no analyzer")
	}
	var done int
	for {
		var release int64
		err := s.r.QueryRowContext(ctx, `SELECT release FROM release_analysis WHERE state = 'pending'
			ORDER BY release LIMIT 1`).Scan(&release)
		if err == sql.ErrNoRows {
			return done, nil
		}
		if err != nil {
			return done, s.readError(err)
		}
		err = s.write(ctx, "analyse logics", nil, func(tx *sql.Tx) error {
			var state string
			err := tx.QueryRowContext(ctx, `SELECT state FROM release_analysis WHERE release = ?`, release).Scan(&state)
			if err == sql.ErrNoRows || (err == nil && state != AnalysisPending) {
				return nil // deleted or analysed by another process since
			}
			if err != nil {
				return err
			}
			if err := deleteAnalysis(ctx, tx, release); err != nil {
				return err
			}
			if err := analyzeRelease(ctx, tx, release, a, nil); err != nil {
				return fmt.Errorf("release row %d: %w", release, err)
			}
			// A release whose connections say it has nothing to analyse
			// (no postgres one) keeps no row.
			var left int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM release_analysis WHERE release = ? AND state = 'pending'`,
				release).Scan(&left); err != nil {
				return err
			}
			if left > 0 {
				_, err = tx.ExecContext(ctx, `DELETE FROM release_analysis WHERE release = ?`, release)
			}
			return err
		})
		if err != nil {
			return done, err
		}
		done++
	}
}

// deleteAnalysis deletes the analysis rows of release's logics.
func deleteAnalysis(ctx context.Context, tx *sql.Tx, release int64) error {
	lo, hi := idRange(release)
	for _, table := range []string{"logic_analysis", "logic_results", "logic_bindings", "logic_problems"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE logic_id >= ? AND logic_id < ?`, lo, hi); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM logic_tables WHERE release = ?`, release)
	return err
}
