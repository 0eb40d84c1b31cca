package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// ReleaseTx writes one release into the index in one immediate write
// transaction, which holds the index's write lock from BeginRelease until
// Commit or Rollback. The caller drives it, and nothing calls back:
//
//	tx, err := st.BeginRelease(ctx, analyzer)
//	...
//	defer tx.Rollback()
//	err = tx.Index(parts) // pulls every part of the release, and its tables' findings
//	err = tx.Finish(origin, file, makeCurrent)
//	// findings judged from the rows written: tx.ColumnTypes, tx.ForeignKey,
//	// tx.Findings (lint_write.go)
//	// file operations that must take effect with the index change: the
//	// write lock is held, so those of other processes wait
//	err = tx.Commit() // on failure, the caller undoes its file operations
//
// A release with the same project and id is replaced (its current pointer
// follows when the environment is the same). Until Commit returns nil,
// nothing is written.
type ReleaseTx struct {
	s        *Store
	ctx      context.Context
	tx       *sql.Tx
	w        *ReleaseWriter
	finished bool // Finish wrote the release's rows
	done     bool

	keyTypes, columnTypes *sql.Stmt // of ColumnTypes, once prepared
}

// Parts is what ReleaseTx.Index pulls the parts of a release from: the
// caller's iterator around a snapshot.Decoder, which gives the findings of
// the schema rules (indexer/lint) about each table with it.
type Parts interface {
	Next() bool
	Part() snapshot.Part
	// Findings are the findings about the table Part gave, when it gave
	// one; nil for the other parts.
	Findings() []snapshot.Finding
	Err() error
}

// opRelease names the operation in the errors of a ReleaseTx.
const opRelease = "store release"

// BeginRelease starts writing a release: it waits for the write lock (up
// to the busy timeout) and begins the transaction. a analyses the logics
// of a release with a postgres connection when it is finished
// (logic_analysis.go); nil marks such a release pending instead.
func (s *Store) BeginRelease(ctx context.Context, a *analysis.Analyzer) (*ReleaseTx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("%s: %w", opRelease, s.why)
	}
	tx, err := s.w.BeginTx(ctx, nil) // immediate: _txlock=immediate in the DSN
	if err != nil {
		return nil, classify(opRelease, err)
	}
	w, err := newReleaseWriter(ctx, tx, filepath.Dir(s.path))
	if err != nil {
		tx.Rollback()
		return nil, classify(opRelease, err)
	}
	w.analyzer = a
	if a != nil {
		w.mem = newMemTables()
	}
	return &ReleaseTx{s: s, ctx: ctx, tx: tx, w: w}, nil
}

// Index pulls every part of parts and writes it: the release's name, its
// connections, tables and logics (an origin is the caller's to give in
// Finish). An error of parts (its Err) comes back as is; so does an error
// about a part (a connection given twice, too many tables), wrapped with
// the part's name.
func (t *ReleaseTx) Index(parts Parts) error {
	t.w.stream.allowed = true // a document's parts: its logics may be analysed as they come
	for parts.Next() {
		if err := t.part(parts.Part(), parts); err != nil {
			if errors.Is(err, errPipeline) {
				return t.pipelineError()
			}
			return err
		}
	}
	return parts.Err()
}

// part writes one part of the release, pulled from parts.
func (t *ReleaseTx) part(p snapshot.Part, parts Parts) error {
	switch p.Kind {
	case snapshot.KindRelease:
		r := p.Release // a copy: the address of p would move every part to the heap
		t.w.rel = &r
	case snapshot.KindConnection:
		return t.w.Connection(p.Connection)
	case snapshot.KindTable:
		if t.w.mem != nil {
			t.w.mem.read = p.Read
		}
		if err := t.w.Table(p.Table); err != nil {
			return err
		}
		return t.w.Findings(parts.Findings())
	case snapshot.KindLogic:
		return t.w.Logic(p.Logic)
	}
	return nil
}

// pipelineError returns the error of the statement that failed, not of
// the one stopped after it.
func (t *ReleaseTx) pipelineError() error {
	err := t.w.pipe.wait()
	if err == nil {
		err = errPipeline
	}
	return classify(opRelease, err)
}

// Finish writes what is left of the release once its parts are in: the
// foreign keys, the search words, the counts of the findings and the
// release's own row, saying where it came from (o) and what its release
// file is (f); with makeCurrent, the release becomes current for its
// environment.
func (t *ReleaseTx) Finish(o snapshot.Origin, f FileState, makeCurrent bool) error {
	t.w.origin, t.w.file = o, f
	err := t.w.finish(t.ctx, makeCurrent)
	if errors.Is(err, errPipeline) {
		return t.pipelineError()
	}
	t.w.close() // no statement may run once the transaction ends
	if err != nil {
		if _, ok := errors.AsType[*Error](err); ok {
			return err
		}
		return classify(opRelease, err)
	}
	t.finished = true
	return nil
}

// closeStatements closes the statements of ColumnTypes before the
// transaction ends.
func (t *ReleaseTx) closeStatements() {
	for _, s := range []**sql.Stmt{&t.keyTypes, &t.columnTypes} {
		if *s != nil {
			(*s).Close()
			*s = nil
		}
	}
}

// Commit commits the transaction and releases the write lock. After an
// error, nothing was written.
func (t *ReleaseTx) Commit() error {
	t.done = true
	t.w.close()
	t.closeStatements()
	if err := t.tx.Commit(); err != nil {
		return classify(opRelease, err)
	}
	t.s.restamp()
	return nil
}

// Rollback ends the transaction without writing, unless Commit ended it
// already: a deferred Rollback is always safe.
func (t *ReleaseTx) Rollback() {
	if t.done {
		return
	}
	t.done = true
	t.w.close()
	t.closeStatements()
	t.tx.Rollback()
}

// WriteOptions say what WriteRelease does besides storing the release.
type WriteOptions struct {
	// MakeCurrent makes the release current for its project and
	// environment.
	MakeCurrent bool
	// Hook, when set, runs just before the transaction commits (see Hook).
	Hook Hook
	// Analyzer analyses the logics of a release with a postgres connection
	// (logic_analysis.go); nil marks such a release pending instead.
	Analyzer *analysis.Analyzer
}

// WriteRelease stores a release in one ReleaseTx, fill sending its parts
// to the ReleaseWriter: for callers that make a release in Go (tests,
// benchmarks, storetest) rather than decode one. The findings of the
// schema rules are fill's to give (ReleaseWriter.Findings; lint.Release
// makes them for a release held whole). If fill fails, nothing is written
// and its error is returned.
func (s *Store) WriteRelease(ctx context.Context, opts WriteOptions, fill func(*ReleaseWriter) error) (err error) {
	t, err := s.BeginRelease(ctx, opts.Analyzer)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fill(t.w); err != nil {
		if errors.Is(err, errPipeline) {
			return t.pipelineError()
		}
		return err // as fill returned it: not an error of the index
	}
	if err := t.Finish(t.w.origin, t.w.file, opts.MakeCurrent); err != nil {
		return err
	}
	var finish func(bool)
	if opts.Hook != nil {
		if finish, err = opts.Hook(); err != nil {
			return err
		}
	}
	err = t.Commit()
	if finish != nil {
		finish(err == nil)
	}
	return err
}

// PutRelease stores snap, read from a release file described by file: the
// whole-snapshot form of WriteRelease, without findings of the schema
// rules (a caller that wants them gives them through WriteRelease).
func (s *Store) PutRelease(ctx context.Context, snap *snapshot.Snapshot, file FileState, makeCurrent bool, hook Hook) error {
	return s.WriteRelease(ctx, WriteOptions{MakeCurrent: makeCurrent, Hook: hook}, func(w *ReleaseWriter) error {
		w.Release(snap.Release, snap.Origin)
		w.File(file)
		for _, c := range snap.Connections {
			if err := w.Connection(c); err != nil {
				return err
			}
		}
		for i := range snap.Tables {
			if err := w.Table(&snap.Tables[i]); err != nil {
				return err
			}
		}
		for i := range snap.Logics {
			if err := w.Logic(&snap.Logics[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
