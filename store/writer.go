package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// ReleaseWriter writes the parts of one release, in any order, inside a
// ReleaseTx (or a WriteRelease's fill). Release must be called once, at
// any point; tables and logics are written as they come, so a release is
// never held in memory whole.
type ReleaseWriter struct {
	ctx     context.Context // the transaction's: the writer lives within it
	tx      *sql.Tx
	release int64 // the new release's row id
	closed  bool

	rel         *snapshot.Release
	origin      snapshot.Origin
	file        FileState
	connections map[string]bool // named so far: true when declared, false when only used by a table
	declared    int

	nextTable, nextLogic int64

	pipe                                                                  *pipeline
	connectionRows, tables, columns, foreignKeys, indexes, logics, params *batch
	search, searchNames                                                   *batch
	lint                                                                  lintState // lint_write.go: the findings
	analyzer                                                              *analysis.Analyzer
	// mem keeps the tables for the analysis of the logics, while it has
	// room (logic_analysis_mem.go); stream analyses them as they come
	// (logic_analysis_stream.go).
	mem    *memTables
	stream streamAnalysis

	// What is written last, in key order (see spill.go): the foreign
	// keys, the search rows' names, and the distinct words.
	keys, names *spill
	words       *wordSet
	rec         []byte // scratch for a record
}

// newReleaseWriter makes the writer of a release in tx; its spills make
// their files in dir.
func newReleaseWriter(ctx context.Context, tx *sql.Tx, dir string) (*ReleaseWriter, error) {
	// Tables and logics come before their release's row, and batches fill
	// at different rates: rows come before their parents. The writer does
	// not check foreign keys (see writePragmas); a test does.
	w := &ReleaseWriter{ctx: ctx, tx: tx, connections: map[string]bool{}, pipe: newPipeline(ctx),
		keys: newSpill("foreign keys", dir, spillBytes), names: newSpill("search names", dir, spillBytes),
		words: newWordSet(newSpill("search words", dir, spillBytes))}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM releases`).Scan(&w.release); err != nil {
		return nil, err
	}
	if err := checkReleaseID(w.release); err != nil {
		return nil, err
	}
	lo, _ := idRange(w.release)
	w.nextTable, w.nextLogic = lo, lo
	for _, b := range []struct {
		dst    **batch
		insert string
	}{
		{&w.connectionRows, insertConnection},
		{&w.tables, insertTable},
		{&w.columns, insertColumn},
		{&w.foreignKeys, insertForeignKey},
		{&w.indexes, insertIndex},
		{&w.logics, insertLogic},
		{&w.params, insertParam},
		{&w.search, insertSearchRow},
		{&w.searchNames, insertSearchName},
		{&w.lint.findings, insertFinding},
	} {
		*b.dst = newBatch(tx, b.insert, w.pipe)
	}
	return w, nil
}

func (w *ReleaseWriter) batches() []*batch {
	b := []*batch{w.connectionRows, w.tables, w.columns, w.foreignKeys, w.indexes, w.logics, w.params,
		w.search, w.searchNames, w.lint.findings}
	if w.stream.w != nil {
		b = append(b, w.stream.w.batches()...)
	}
	return b
}

func (w *ReleaseWriter) close() {
	if w.closed {
		return
	}
	w.closed = true
	w.pipe.wait() // no statement may run once the transaction ends
	for _, b := range w.batches() {
		b.close()
	}
	for _, s := range []*spill{w.keys, w.names, w.words.spill} {
		s.close()
	}
}

// Release names the release and says where it came from.
func (w *ReleaseWriter) Release(r snapshot.Release, o snapshot.Origin) {
	w.rel, w.origin = &r, o
}

// File describes the release file the release is read from (or written
// to), so that later scans of the cache can tell it unchanged.
func (w *ReleaseWriter) File(f FileState) { w.file = f }

const insertConnection = `INSERT INTO connections (release, name, engine, position) VALUES (?, ?, ?, ?)`

// Connection adds a database connection of the release.
func (w *ReleaseWriter) Connection(c snapshot.Connection) error {
	if w.connections[c.Name] {
		return fmt.Errorf("connection %q: given twice", c.Name)
	}
	w.connections[c.Name] = true
	if err := w.stream.noteConnection(c); err != nil {
		return err
	}
	if err := w.connectionRows.add(w.ctx, w.release, c.Name, nullString(c.Engine), w.declared); err != nil {
		return fmt.Errorf("connection %q: %w", c.Name, err)
	}
	w.declared++
	return nil
}

// Table adds a table of the release. t is not kept.
func (w *ReleaseWriter) Table(t *snapshot.Table) error {
	ctx := w.ctx
	lo, _ := idRange(w.release)
	if w.nextTable-lo >= logicRows {
		return errors.New("too many tables")
	}
	id := w.nextTable
	w.nextTable++
	if w.stream.on {
		return errPartAfterLogics
	}
	if _, ok := w.connections[t.Connection]; !ok {
		w.connections[t.Connection] = false // used, not (yet) declared
	}
	if w.mem != nil && w.stream.allowed && len(w.stream.conns) > 0 && !w.stream.postgres {
		// A document's connections are one array, all of them given by
		// its first table when they come before it: none is postgres, so
		// none of its logics is analysed, and nothing needs the tables kept.
		w.mem = nil
	}
	if w.mem != nil {
		w.mem.add(t)
	}
	if err := w.writeTable(ctx, id, int(id-lo), t); err != nil {
		return fmt.Errorf("table %q: %w", t.Name, err)
	}
	if err := w.searchTable(ctx, id, t); err != nil {
		return fmt.Errorf("search row of table %q: %w", t.Name, err)
	}
	w.countComments(t)
	return nil
}

// Logic adds a logic of the release. l is not kept.
func (w *ReleaseWriter) Logic(l *snapshot.Logic) error {
	ctx := w.ctx
	lo, _ := idRange(w.release)
	if w.nextLogic-lo >= logicRows {
		return errors.New("too many logics")
	}
	id := w.nextLogic
	w.nextLogic++
	if err := w.writeLogic(ctx, id, int(id-lo), l); err != nil {
		return fmt.Errorf("logic %q: %w", l.Name, err)
	}
	if err := w.searchLogic(ctx, id, l); err != nil {
		return fmt.Errorf("search row of logic %q: %w", l.Name, err)
	}
	if err := w.analyzeLogic(ctx, id, l); err != nil {
		return fmt.Errorf("analyse logic %q: %w", l.Name, err)
	}
	return nil
}

const insertRelease = `INSERT INTO releases (id, project, release_id, environment, version, created_at, synced_at, source,
		digest, file_digest, file_size, file_mtime, table_count, logic_count)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// undeclared returns the connections that only tables named, sorted:
// the index lists them after the declared ones.
func (w *ReleaseWriter) undeclared() []string {
	var used []string
	for name, declared := range w.connections {
		if !declared {
			used = append(used, name)
		}
	}
	slices.Sort(used)
	return used
}

// finish writes what the batches still hold and the release's own row,
// replacing a release with the same project and id.
func (w *ReleaseWriter) finish(ctx context.Context, makeCurrent bool) error {
	if w.rel == nil {
		return errors.New("the release was never named")
	}
	r, o := w.rel, w.origin
	if o.SyncedAt == "" {
		o.SyncedAt = time.Now().UTC().Format(time.RFC3339)
	}
	// A table may live in a connection the snapshot does not list (main,
	// most often): the index lists it too, after the others, by name.
	for i, name := range w.undeclared() {
		if err := w.connectionRows.add(ctx, w.release, name, nil, w.declared+i); err != nil {
			return fmt.Errorf("connection %q: %w", name, err)
		}
	}
	if err := w.writeKeys(ctx); err != nil {
		return err
	}
	if err := w.writeNames(ctx); err != nil {
		return err
	}
	for _, b := range w.batches() {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	if err := w.pipe.wait(); err != nil {
		return err
	}
	if err := w.writeWords(ctx); err != nil {
		return err
	}
	if err := w.writeChecks(ctx); err != nil {
		return err
	}
	if err := w.finishAnalysis(ctx); err != nil {
		return fmt.Errorf("analyse logics: %w", err)
	}
	// The release replaces its namesake. A current pointer of the same
	// environment moves to it; one of another environment must not follow
	// a release whose environment changed, and goes with the old release.
	if _, err := w.tx.ExecContext(ctx, `UPDATE current_releases SET release = ?
		WHERE environment = ? AND release = (SELECT id FROM releases WHERE project = ? AND release_id = ?)`,
		w.release, r.Environment, r.Project, r.ID); err != nil {
		return err
	}
	if err := deleteRelease(ctx, w.tx, ReleaseKey{Project: r.Project, ID: r.ID}); err != nil {
		return err
	}
	lo, _ := idRange(w.release)
	if _, err := w.tx.ExecContext(ctx, insertRelease, w.release, r.Project, r.ID, r.Environment, r.Version, r.CreatedAt,
		o.SyncedAt, o.Source, o.Digest, w.file.Digest, w.file.Size, w.file.MTime, w.nextTable-lo, w.nextLogic-lo); err != nil {
		return err
	}
	if makeCurrent {
		return setCurrent(ctx, w.tx, r.Project, r.Environment, w.release)
	}
	return nil
}
