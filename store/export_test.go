package store

import (
	"context"
	"database/sql"
)

// PutSearchRows rewrites only the search rows of the stored release
// project/id from snap, in one transaction: what the search index adds to
// indexing a release, for BenchmarkSearchIndexing.
func (s *Store) PutSearchRows(ctx context.Context, project, id string, snap *Snapshot) error {
	return s.write(ctx, "store search rows", nil, func(tx *sql.Tx) error {
		var release int64
		if err := tx.QueryRowContext(ctx, "SELECT id FROM releases WHERE project = ? AND release_id = ?",
			project, id).Scan(&release); err != nil {
			return err
		}
		if err := deleteSearch(ctx, tx, release); err != nil {
			return err
		}
		ins, err := newInserts(ctx, tx, release)
		if err != nil {
			return err
		}
		defer ins.close()
		if err := ins.searchRows(ctx, release, snap); err != nil {
			return err
		}
		return ins.flush(ctx)
	})
}
