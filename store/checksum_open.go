package store

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoChecksums reports an index whose pages have no checksums: one made
// by a hubsnap before page checksums, whose pages keep no reserved bytes.
// It is ErrCorrupt too: the index is derived data, and its first writer
// rebuilds it from the release files (indexer.Open), with checksums.
var ErrNoChecksums = fmt.Errorf("%w: its pages have no checksums (it was made by an older hubsnap)", ErrCorrupt)

// errChecksumVFS is why the checksum VFS could not be registered, or nil.
// It is registered by InitSQLite, after the lookaside size is set, which
// must precede SQLite's first use.
var errChecksumVFS error

// checkChecksums fails with ErrNoChecksums unless the index's pages have
// checksums and the writer checks them.
func (s *Store) checkChecksums(ctx context.Context) error {
	if errChecksumVFS != nil {
		return fmt.Errorf("open index: %w", errChecksumVFS)
	}
	var on string
	if err := s.w.QueryRowContext(ctx, "PRAGMA checksum_verification").Scan(&on); err != nil {
		return classify("open index", err)
	}
	if on != "1" {
		return fmt.Errorf("open index: %w", ErrNoChecksums)
	}
	return nil
}

// Damaged reports whether err means a damaged index: ErrCorrupt, or an
// error of SQLite that says so (SQLITE_CORRUPT, SQLITE_NOTADB, a page
// failing its checksum) that reached the caller unclassified.
func Damaged(err error) bool {
	return err != nil && errors.Is(classify("", err), ErrCorrupt)
}
