package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/hubsnap/hubsnap/store/atomicfile"
	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// Checking the index at open. Every b-tree of the file is checked
// (PRAGMA quick_check) when the file may have been changed by anything but
// a hubsnap that trusted it: its size, time or inode, or those of its
// write-ahead log, differ from what the last hubsnap to write or check it
// recorded in the stamp file beside it (index.db.checked). The check reads
// the whole file, 0.7 s for a 100,000-table index; the stamp makes opening
// an unchanged index cost the same at any size. A hubsnap that trusted the
// file at open records the stamp again after each of its own writes and
// when it closes; one that meets a damaged page while running removes the
// stamp, so the next open checks the whole file (docs/design.md).

// stampSuffix names the stamp file: index.db.checked.
const stampSuffix = ".checked"

// fileStamp is what the stamp records of the index and its log.
type fileStamp struct {
	Size, MTime, Inode, Dev int64
	WALSize, WALMTime       int64
}

// stampOf reads the stamp of the index at path as it is now.
func stampOf(path string) (fileStamp, error) {
	var st fileStamp
	info, err := os.Stat(path)
	if err != nil {
		return st, err
	}
	st.Size, st.MTime = info.Size(), info.ModTime().UnixNano()
	st.Inode, st.Dev = fileID(info)
	// An empty log holds nothing: opening the file makes one.
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		st.WALSize, st.WALMTime = wal.Size(), wal.ModTime().UnixNano()
	}
	return st, nil
}

// stampValid tells whether the index is as a trusting hubsnap left it.
func (s *Store) stampValid() bool {
	data, err := os.ReadFile(s.path + stampSuffix)
	if err != nil {
		return false
	}
	var recorded fileStamp
	if json.Unmarshal(data, &recorded) != nil {
		return false
	}
	now, err := stampOf(s.path)
	return err == nil && now == recorded
}

// restamp records the index as it is now, when this Store trusts it.
// It is best effort: without a stamp, the next open checks the file.
func (s *Store) restamp() {
	if !s.trusted.Load() || s.readOnly {
		return
	}
	st, err := stampOf(s.path)
	if err != nil {
		return
	}
	data, _ := json.Marshal(st)
	atomicfile.WriteFile(s.path+stampSuffix, data)
}

// distrust forgets that the index was whole: a page was found damaged.
func (s *Store) distrust() {
	s.trusted.Store(false)
	os.Remove(s.path + stampSuffix)
}

// verify checks the file unless its stamp said it was unchanged (stamped).
func (s *Store) verify(ctx context.Context, stamped bool) error {
	if stamped {
		s.trusted.Store(true)
		return nil
	}
	s.checked = true
	if err := s.check(ctx); err != nil {
		return err
	}
	s.trusted.Store(true)
	return nil
}

// readError wraps an error of a read, marking (and remembering) a damaged
// page.
func (s *Store) readError(err error) error {
	err = classify("read index", err)
	if errors.Is(err, ErrCorrupt) {
		s.distrust()
		if f, ok := cksumvfs.RecentFault(s.path); ok {
			err = fmt.Errorf("%w: %s", err, f)
		}
	}
	return err
}

// Page checksums (store/cksumvfs): an index must have them.

// ErrNoChecksums reports an index whose pages have no checksums: one made
// by a hubsnap before page checksums, whose pages keep no reserved bytes.
// It is ErrCorrupt too: the index is derived data, and its first writer
// rebuilds it from the release files (indexer.Open), with checksums.
var ErrNoChecksums = fmt.Errorf("%w: its pages have no checksums (it was made by an older hubsnap)", ErrCorrupt)

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
