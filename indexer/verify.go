package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// Verifying the index (hubsnap index verify, docs/cli.md). Every page is
// read and checked against its checksum, the b-trees are checked
// (integrity_check), and the content is compared with an index rebuilt
// from the release files into a temp file. With repair, damage of any
// kind is repaired as Repair does (the rebuilt index is copied into the
// live one), and the index is verified again, against the same rebuilt
// copy. Without repair, damage found in pages or structure ends the
// checks before the rebuild, which would serve only a repair.

// Damage is one thing wrong with the index.
type Damage struct {
	Kind string `json:"kind"` // "open", "page", "structure" or "content"
	What string `json:"what"`
}

// VerifyReport is what Verify found, and did.
type VerifyReport struct {
	Index  string   `json:"index"`  // the index file
	Pages  int64    `json:"pages"`  // pages read and checked
	Damage []Damage `json:"damage"` // what was found ([] when healthy)
	// Repaired is set when damage was found and repaired; Damage is then
	// what was found before, and the index was verified healthy after.
	Repaired bool `json:"repaired"`
}

// Healthy reports whether the index is as its release files make it.
func (r VerifyReport) Healthy() bool { return len(r.Damage) == 0 || r.Repaired }

// ErrNoIndex reports a cache without an index to verify.
var ErrNoIndex = errors.New("no index")

// Verify checks the index of the cache in dir, and with repair, repairs
// it. It reads every page and, unless it found damage it is not to
// repair, rebuilds the index once from the release files: about as long
// as importing them.
func Verify(ctx context.Context, dir string, repair bool, log *slog.Logger) (VerifyReport, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return VerifyReport{}, fmt.Errorf("cache folder: %w", err)
	}
	path := filepath.Join(abs, indexFile)
	if _, err := os.Stat(path); err != nil {
		return VerifyReport{Index: path}, fmt.Errorf("%w in %s: %v", ErrNoIndex, abs, err)
	}
	v := &verifier{dir: abs, path: path, log: log, repairing: repair}
	defer v.close()
	rep, err := v.verify(ctx, true)
	if err != nil || !repair || len(rep.Damage) == 0 {
		return rep, err
	}
	log.Warn("the index is damaged; repairing it from the release files", "index", path, "problems", len(rep.Damage))
	changed, err := v.repair(ctx)
	if err != nil {
		return rep, fmt.Errorf("repair index: %w", err)
	}
	// The repaired index is checked against the copy it was made from,
	// unless the release files changed since that copy was built.
	after, err := v.verify(ctx, changed)
	if err != nil {
		return rep, err
	}
	if len(after.Damage) > 0 {
		return rep, fmt.Errorf("repair index: still damaged after the repair: %s", after.Damage[0].What)
	}
	rep.Repaired = true
	return rep, nil
}

// verifier holds what one run of Verify opened.
type verifier struct {
	dir, path string
	log       *slog.Logger
	repairing bool         // damage found is to be repaired
	st        *store.Store // nil when the index cannot be opened
	rebuilt   string       // the last rebuild's temp index
	done      func()       // removes rebuilt (see buildIndexCopy)
}

func (v *verifier) close() {
	if v.st != nil {
		v.st.Close()
	}
	if v.done != nil {
		v.done()
	}
}

// verify runs every check once. The content is compared with a copy
// rebuilt from the release files: a fresh one, or with fresh unset the
// last one built. Damage found before the comparison ends the checks
// unless it is to be repaired: the rebuild would serve only the repair.
func (v *verifier) verify(ctx context.Context, fresh bool) (VerifyReport, error) {
	rep := VerifyReport{Index: v.path, Damage: []Damage{}}
	d := damageLog{&rep}
	if v.st == nil {
		st, err := store.Open(ctx, v.path)
		if err := d.fail("open", err); err != nil {
			return rep, err
		}
		v.st = st
	}
	size := 0
	if v.st != nil {
		var err error
		if size, err = v.check(ctx, d); err != nil {
			return rep, err
		}
	}
	if len(rep.Damage) > 0 && !v.repairing {
		return rep, nil
	}
	if fresh || v.rebuilt == "" {
		if err := v.rebuild(ctx, size); err != nil {
			return rep, err
		}
	}
	if v.st != nil && len(rep.Damage) == 0 {
		if err := v.compare(ctx, d); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// damageLog collects the damage verify finds into its report.
type damageLog struct{ rep *VerifyReport }

// found records damage of a kind.
func (d damageLog) found(kind, what string) {
	d.rep.Damage = append(d.rep.Damage, Damage{Kind: kind, What: what})
}

// fail records an error of a check as damage when it is, and returns it
// otherwise.
func (d damageLog) fail(kind string, err error) error {
	if errors.Is(err, store.ErrCorrupt) {
		d.found(kind, err.Error())
		return nil
	}
	return err
}

// check checks the open index's pages, then (when they are sound) its
// structure, then (when nothing was found) brings it in line with the
// release files, and returns its page size (0 when it cannot be read).
func (v *verifier) check(ctx context.Context, d damageLog) (size int, err error) {
	bad, pages, err := v.st.CheckPages(ctx)
	if err := d.fail("page", err); err != nil {
		return 0, err
	}
	d.rep.Pages = pages
	for _, b := range bad {
		where := ""
		if b.Btree != "" {
			where = " of " + b.Btree
		}
		what := b.Err.Error()
		if errors.Is(b.Err, store.ErrCorrupt) {
			what = strings.TrimPrefix(what, store.ErrCorrupt.Error()+": ")
		}
		d.found("page", fmt.Sprintf("page %d%s: %s", b.Page, where, what))
	}
	if len(bad) == 0 { // SQLite's own check stops at the first bad page
		problems, err := v.st.CheckStructure(ctx)
		if err := d.fail("structure", err); err != nil {
			return 0, err
		}
		for _, p := range problems {
			d.found("structure", p)
		}
	}
	if len(d.rep.Damage) == 0 {
		// As every command does, first bring the index in line with
		// the release files: a file changed since is not damage.
		c := &Cache{dir: v.dir, store: v.st, log: v.log, now: time.Now}
		if err := d.fail("content", c.Reconcile(ctx)); err != nil {
			return 0, err
		}
	}
	if n, err := v.st.PageSize(ctx); err == nil {
		size = n
	}
	return size, nil
}

// rebuild builds a fresh copy of the index from the release files (pages
// of size bytes, 0 for the default), dropping the one a previous verify
// left.
func (v *verifier) rebuild(ctx context.Context, size int) error {
	if v.done != nil {
		v.done()
		v.rebuilt, v.done = "", nil
	}
	v.log.Debug("rebuilding the index from the release files to compare", "index", v.path)
	tmp, done, err := buildIndexCopy(ctx, v.dir, size, quiet(v.log))
	if err != nil {
		return err
	}
	v.rebuilt, v.done = tmp, done
	return nil
}

// compare records every difference of the index from the rebuilt copy as
// content damage.
func (v *verifier) compare(ctx context.Context, d damageLog) error {
	rebuilt, err := store.Open(ctx, v.rebuilt)
	if err != nil {
		return err
	}
	diffs, err := v.st.Compare(ctx, rebuilt)
	rebuilt.Close()
	if err := d.fail("content", err); err != nil {
		return err
	}
	for _, diff := range diffs {
		d.found("content", diff.String())
	}
	return nil
}

// repair copies the last rebuild into the index, as Repair does, holding
// the cache's write lock, and reports whether the release files changed
// since that rebuild (the index was then brought in line with them).
func (v *verifier) repair(ctx context.Context) (changed bool, err error) {
	lock, err := atomicfile.LockFile(ctx, filepath.Join(v.dir, lockFile), lockWait)
	if err != nil {
		return false, lockError(v.dir, err)
	}
	defer lock.Unlock()
	if v.st != nil {
		if err := v.st.Restore(ctx, v.rebuilt); err != nil {
			return false, err
		}
	} else {
		st, err := installRebuilt(ctx, v.path, v.rebuilt, v.log)
		if err != nil {
			return false, err
		}
		v.st = st
	}
	c := &Cache{dir: v.dir, store: v.st, log: v.log, now: time.Now}
	return c.reconcile(ctx) // the lock is held
}
