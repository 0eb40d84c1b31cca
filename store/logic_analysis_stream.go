package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Analysing logics as they are decoded (issue 27). A snapshot document
// lists its connections, tables and logics as three arrays, each key at
// most once; when the first logic comes after the tables and the
// connections, every table and connection is known, and each logic is
// analysed as it goes by, against the tables memTables kept: the
// analysis then runs on the decoding goroutine while the pipeline writes
// rows, instead of after them on an idle pipeline, and no lookup waits for
// the writer's connection. Its rows go through the pipeline like any
// other. Otherwise (logics before tables, memTables full, a release made
// in Go whose parts come in any order) the release is analysed at its end
// from its rows, as analyzeRelease always did. Both give the same rows.

// streamAnalysis is a ReleaseWriter's state of analysing logics as they
// come.
type streamAnalysis struct {
	allowed  bool // the parts come from a document (ReleaseTx.Index)
	decided  bool // the first logic came
	on       bool
	cat      *analysis.Tables
	w        *analysisWriter
	start    time.Time
	conns    []snapshot.Connection // declared, in order
	postgres bool                  // a declared connection is postgres
}

// errPartAfterLogics is a table or connection after a logic was analysed
// as it came: the analysis would have missed it. A document cannot do it
// (each array is one key, given once).
var errPartAfterLogics = errors.New("a table or connection after the logics")

// noteConnection records a declared connection for the analysis.
func (s *streamAnalysis) noteConnection(c snapshot.Connection) error {
	if s.on {
		return errPartAfterLogics
	}
	s.conns = append(s.conns, c)
	s.postgres = s.postgres || analysis.IsPostgres(c.Engine)
	return nil
}

// startStream decides, at the release's first logic, whether its logics
// are analysed as they come.
func (w *ReleaseWriter) startStream() {
	s := &w.stream
	s.decided = true
	lo, _ := idRange(w.release)
	tables := int(w.nextTable - lo)
	if !s.allowed || w.analyzer == nil || w.mem == nil || w.mem.full || tables == 0 || len(s.conns) == 0 || !s.postgres {
		return
	}
	// The connections as releaseConnections reads them: the declared ones
	// in order, then those only tables name, by name, without an engine.
	conns := slices.Clone(s.conns)
	for _, name := range w.undeclared() {
		conns = append(conns, snapshot.Connection{Name: name})
	}
	s.on = true
	s.cat = analysis.TablesFrom(conns, tables, w.mem)
	s.w = newAnalysisWriter(w.tx, w.release, w.pipe)
	s.start = time.Now()
}

// analyzeLogic analyses logic l, whose id is id, when the release's
// logics are analysed as they come.
func (w *ReleaseWriter) analyzeLogic(ctx context.Context, id int64, l *snapshot.Logic) error {
	s := &w.stream
	if !s.decided {
		w.startStream()
	}
	if !s.on {
		return nil
	}
	if time.Since(s.start) > analysisBudget {
		res := snapshot.Analysis{Statement: snapshot.StatementOther, Unjudged: overBudget}
		return s.w.add(ctx, id, &res)
	}
	res := w.analyzer.Analyze(ctx, s.cat, *l)
	if err := s.cat.Err(); err != nil {
		return fmt.Errorf("read tables: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err // a cancelled analysis says unjudged: not a verdict to keep
	}
	return s.w.add(ctx, id, &res)
}

// finishAnalysis writes what the analysis of the release's logics still
// owes, once every part is in and the batches are flushed: the
// release_analysis row of a streamed analysis, or the whole analysis
// (analyzeRelease).
func (w *ReleaseWriter) finishAnalysis(ctx context.Context) error {
	s := &w.stream
	mem := w.mem
	w.mem = nil // what it holds is not needed past this
	if s.on {
		_, err := w.tx.ExecContext(ctx, upsertReleaseAnalysis, w.release, AnalysisDone, s.w.withProblems)
		return err
	}
	var src analysis.TableSource
	if mem != nil && !mem.full {
		src = mem
	}
	return analyzeRelease(ctx, w.tx, w.release, w.analyzer, src)
}
