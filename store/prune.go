package store

import (
	"context"
	"database/sql"
)

// PruneRelease removes a cached release and everything in it from the
// index. A release that is current for its project and environment is refused
// (InvalidArgument): the check is made inside the transaction, so a
// concurrent `hubsnap snapshot use` cannot slip in between. A release the
// index does not hold is NotFound.
func (s *Store) PruneRelease(ctx context.Context, key ReleaseKey) error {
	c, err := s.BeginPrune(ctx, key)
	if err != nil {
		return err
	}
	return c.Commit()
}

// BeginPrune is PruneRelease left uncommitted, in one immediate
// transaction: the caller removes the release's file, then commits the
// Change (or rolls it back), so that the file and the rows go together or
// not at all.
func (s *Store) BeginPrune(ctx context.Context, key ReleaseKey) (*Change, error) {
	return s.begin(ctx, "prune release "+key.ID, func(tx *sql.Tx) error {
		var found, current bool
		err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM releases WHERE project = ?1 AND release_id = ?2),
			EXISTS (SELECT 1 FROM current_releases c JOIN releases r ON r.id = c.release WHERE r.project = ?1 AND r.release_id = ?2)`,
			key.Project, key.ID).Scan(&found, &current)
		if err != nil {
			return err
		}
		switch {
		case !found:
			return Errorf(NotFound, "release %q of project %q is not in the cache", key.ID, key.Project)
		case current:
			return Errorf(InvalidArgument, "release %q is current; it is never pruned", key.ID)
		}
		return deleteRelease(ctx, tx, key)
	})
}
