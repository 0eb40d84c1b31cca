package store

import (
	"bytes"
	"context"
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// lintedParts are the parts of a decoder, each table judged by the schema
// rules as it passes, as package indexer hands them to a ReleaseTx.
type lintedParts struct {
	*snapshot.Decoder
	lint     *lint.Linter
	findings []snapshot.Finding
}

func (p *lintedParts) Next() bool {
	if !p.Decoder.Next() {
		return false
	}
	p.findings = nil
	if part := p.Part(); part.Kind == snapshot.KindTable {
		p.findings = p.lint.Table(part.Table)
	}
	return true
}

func (p *lintedParts) Findings() []snapshot.Finding { return p.findings }

// decoderOf encodes snap as a release file and returns a decoder of it: the
// parts an ingest hands a ReleaseTx.
func decoderOf(tb testing.TB, snap *snapshot.Snapshot) *lintedParts {
	tb.Helper()
	var buf bytes.Buffer
	if err := snapshot.Encode(&buf, snap); err != nil {
		tb.Fatal(err)
	}
	d := snapshot.NewDecoder(&buf)
	tb.Cleanup(d.Close)
	return &lintedParts{Decoder: d, lint: lint.New()}
}

// A ReleaseTx pulls a release from a decoder and writes it as PutRelease
// would: the same rows, the origin and file state its caller gives.
func TestReleaseTxIndexesADecoder(t *testing.T) {
	ctx := context.Background()
	snap := smallSnapshot("shop", "rel_42", "dev", 42, "t", 30)
	viaPut := openStore(t)
	put(t, viaPut, snap, true)

	s := openStore(t)
	tx, err := s.BeginRelease(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	parts := decoderOf(t, snap)
	if err := tx.Index(parts); err != nil {
		t.Fatal(err)
	}
	file := FileState{Digest: "sha256:" + "ab", Size: 7, MTime: 9}
	if err := tx.Finish(snap.Origin, file, true); err != nil {
		t.Fatal(err)
	}
	if err := parts.lint.KeyFindings(tx, tx.Findings); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(rowCounts(t, viaPut), rowCounts(t, s)); diff != "" {
		t.Errorf("rows (-PutRelease +ReleaseTx):\n%s", diff)
	}
	ri, err := s.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: "rel_42"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [3]any{ri.Origin, ri.Current, ri.Tables}, [3]any{snap.Origin, true, 30}; got != want {
		t.Errorf("release info = %v, want %v", got, want)
	}
	files, err := s.IndexedFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := files[ReleaseKey{Project: "shop", ID: "rel_42"}].FileState; got != file {
		t.Errorf("file state = %+v, want %+v", got, file)
	}
}

// failingParts hands out the parts of a decoder, then fails.
type failingParts struct {
	*lintedParts
	err error
}

func (f failingParts) Err() error { return f.err }

// An error of the parts comes back as is, and a ReleaseTx rolled back (or
// whose commit fails) leaves the index as it was, its writer usable.
func TestReleaseTxFailures(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)
	snap := smallSnapshot("shop", "rel_42", "dev", 43, "n", 5)

	ctx := context.Background()
	tx, err := s.BeginRelease(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("the document went away")
	if err := tx.Index(failingParts{decoderOf(t, snap), boom}); err != boom {
		t.Errorf("Index = %v, want the parts' own error", err)
	}
	tx.Rollback()
	tx.Rollback() // twice is harmless
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after a rollback (-want +got):\n%s", diff)
	}

	// The commit fails: its context is canceled once the rows are in, as
	// when a caller's file operations take too long.
	cctx, cancel := context.WithCancel(ctx)
	tx, err = s.BeginRelease(cctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := tx.Index(decoderOf(t, snap)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Finish(snap.Origin, FileState{}, true); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := tx.Commit(); err == nil {
		t.Fatal("Commit after the context was canceled succeeded")
	}
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after a failed commit (-want +got):\n%s", diff)
	}
	put(t, s, smallSnapshot("shop", "rel_43", "dev", 43, "y", 1), true) // writer still usable
}

// The findings a ReleaseTx is given as its tables pass, and after Finish
// from the rows it reads back (FK_TYPE_MISMATCH, as an import runs it),
// are those of a release held whole: the same rows, answers and counts.
func TestReleaseTxFindingsAfterFinish(t *testing.T) {
	ctx := context.Background()
	snap := lintSnapshot()
	orders := &snap.Tables[2]
	orders.ForeignKeys = orders.ForeignKeys[:4] // the decoder refuses the key to a column accounts lacks
	viaPut := openStore(t)
	put(t, viaPut, snap, true)

	s := openStore(t)
	tx, err := s.BeginRelease(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	parts := decoderOf(t, snap)
	if err := tx.Index(parts); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ColumnTypes("main", "orders", []string{"id"}); err == nil {
		t.Error("ColumnTypes before Finish: no error")
	}
	if err := tx.Finish(snap.Origin, fileStateOf(snap), true); err != nil {
		t.Fatal(err)
	}
	if err := parts.lint.KeyFindings(tx, tx.Findings); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(rowCounts(t, viaPut), rowCounts(t, s)); diff != "" {
		t.Errorf("rows (-held whole +ReleaseTx):\n%s", diff)
	}
	for _, codes := range [][]string{nil, {snapshot.CodeFKTypeMismatch}} {
		want, wantFirst := checkAll(t, viaPut, shopDev, CheckRequest{Codes: codes})
		got, first := checkAll(t, s, shopDev, CheckRequest{Codes: codes})
		if diff := gocmp.Diff(want, got); diff != "" || first.Total != wantFirst.Total {
			t.Errorf("%v: total %d, want %d; findings (-held whole +ReleaseTx):\n%s", codes, first.Total, wantFirst.Total, diff)
		}
	}
	want, err := readRelease(t, viaPut, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if got.SchemaProblems != want.SchemaProblems || got.SchemaProblems != len(lintWant) {
		t.Errorf("schemaProblems = %d, want %d", got.SchemaProblems, len(lintWant))
	}
}
