package mcpservertest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// ShopDev is the target every test server serves.
var ShopDev = store.Target{Project: "shop", Environment: "dev"}

// FixedOrigin replaces the fixture's origin so that release_info (syncedAt
// above all) is the same on every run.
var FixedOrigin = snapshot.Origin{
	Source:   snapshot.SourceImport,
	Digest:   "sha256:" + strings.Repeat("ab", 32),
	SyncedAt: "2026-11-02T09:30:00Z",
}

// ShopSnapshot decodes testdata/snapshots/shop.json through the real
// decoder (which drops its planted secrets) and fixes its origin.
func ShopSnapshot(tb testing.TB) *snapshot.Snapshot {
	tb.Helper()
	snap, err := snapshot.Decode([]byte(ReadFixture(tb)))
	if err != nil {
		tb.Fatalf("decode shop.json: %v", err)
	}
	snap.Origin = FixedOrigin
	return snap
}

// ReadFixture returns testdata/snapshots/shop.json of the module, found
// from the test's folder upwards.
func ReadFixture(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "testdata", "snapshots", "shop.json"))
		if err == nil {
			return string(data)
		}
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil || filepath.Dir(dir) == dir {
			tb.Fatalf("read the shop fixture: %v", err)
		}
		dir = filepath.Dir(dir)
	}
}

// OpenStore opens a fresh index in a temporary folder, closed when the
// test ends.
func OpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "index.db"))
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("store.Close: %v", err)
		}
	})
	return st
}

// PutCurrent stores snap, its logics analysed, and makes it current.
func PutCurrent(tb testing.TB, st *store.Store, snap *snapshot.Snapshot) {
	tb.Helper()
	file := store.FileState{Digest: "sha256:" + strings.Repeat("f", 64), Size: 1234, MTime: 1_700_000_000_000_000_000}
	PutAnalysed(tb, st, snap, file, true)
}

// PutAnalysed stores snap with its logics analysed.
func PutAnalysed(tb testing.TB, st *store.Store, snap *snapshot.Snapshot, file store.FileState, makeCurrent bool) {
	tb.Helper()
	err := st.WriteRelease(context.Background(), store.WriteOptions{MakeCurrent: makeCurrent, Analyzer: Analyzer(tb)},
		func(w *store.ReleaseWriter) error { return FillRelease(w, snap, file) })
	if err != nil {
		tb.Fatalf("WriteRelease(%s): %v", snap.Release.ID, err)
	}
}

// FillRelease gives w every part of snap, and the findings of the schema
// rules about its tables (lint.Release), as an import writes them.
func FillRelease(w *store.ReleaseWriter, snap *snapshot.Snapshot, file store.FileState) error {
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
	if err := w.Findings(lint.Release(snap)); err != nil {
		return err
	}
	for i := range snap.Logics {
		if err := w.Logic(&snap.Logics[i]); err != nil {
			return err
		}
	}
	return nil
}

var (
	analyzerOnce sync.Once
	analyzerTest *analysis.Analyzer
	analyzerErr  error
)

// Analyzer is one Analyzer shared by a test binary, its compilation cache
// in the system's temporary folder: releases are written as `hubsnap
// snapshot sync` writes them, analysed.
func Analyzer(tb testing.TB) *analysis.Analyzer {
	tb.Helper()
	analyzerOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "hubsnap-analysis-test-wazero")
		analyzerTest, analyzerErr = analysis.New(context.Background(), analysis.Options{CacheDir: dir})
	})
	if analyzerErr != nil {
		tb.Fatal(analyzerErr)
	}
	return analyzerTest
}

// Call calls a tool and fails the test on a protocol error. args may be
// anything that marshals to JSON, including json.RawMessage.
func Call(tb testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		tb.Fatalf("%s(%s): protocol error: %v", tool, Short(args), err)
	}
	return res
}

// Short renders args for a failure message, cutting long values.
func Short(args any) string {
	b, err := json.Marshal(args)
	if err != nil {
		return "<unmarshalable>"
	}
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// Text returns the one text block of res.
func Text(tb testing.TB, res *mcp.CallToolResult) string {
	tb.Helper()
	if len(res.Content) != 1 {
		tb.Fatalf("result has %d content blocks, want 1: %s", len(res.Content), Short(res))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		tb.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// Success returns the structured output of a successful call decoded into
// T, after checking that the text block holds the same JSON.
func Success[T any](tb testing.TB, res *mcp.CallToolResult) T {
	tb.Helper()
	var out T
	if res.IsError {
		tb.Fatalf("isError result: %s", Text(tb, res))
	}
	if res.StructuredContent == nil {
		tb.Fatalf("no structuredContent; text: %s", Text(tb, res))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	if !JSONEqual(tb, structured, []byte(Text(tb, res))) {
		tb.Errorf("text and structuredContent differ:\ntext:       %s\nstructured: %s", Text(tb, res), structured)
	}
	if err := json.Unmarshal(structured, &out); err != nil {
		tb.Fatalf("decode structuredContent into %T: %v", out, err)
	}
	return out
}

// ErrorDoc is the error document of an isError result.
type ErrorDoc struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Failed checks that res is an isError result with exactly the
// docs/tools.md document as its text, and returns its code and message.
func Failed(tb testing.TB, res *mcp.CallToolResult) (code, message string) {
	tb.Helper()
	if !res.IsError {
		tb.Fatalf("got a successful result, want an error: %s", Text(tb, res))
	}
	if res.StructuredContent != nil {
		tb.Errorf("an error result carries structuredContent: %s", Short(res.StructuredContent))
	}
	t := Text(tb, res)
	dec := json.NewDecoder(strings.NewReader(t))
	dec.DisallowUnknownFields()
	var doc ErrorDoc
	if err := dec.Decode(&doc); err != nil {
		tb.Fatalf("error text is not {\"error\":{\"code\",\"message\"}}: %v\ntext: %s", err, t)
	}
	if doc.Error.Code == "" || doc.Error.Message == "" {
		tb.Fatalf("error text lacks a code or message: %s", t)
	}
	return doc.Error.Code, doc.Error.Message
}

// WantCode checks that res is a tool error with code want and returns its
// message.
func WantCode(tb testing.TB, res *mcp.CallToolResult, want store.Code) string {
	tb.Helper()
	code, msg := Failed(tb, res)
	if code != string(want) {
		tb.Fatalf("error code = %s (%s), want %s", code, msg, want)
	}
	return msg
}

// JSONEqual reports whether a and b hold the same JSON value.
func JSONEqual(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		tb.Fatalf("not JSON: %v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		tb.Fatalf("not JSON: %v: %s", err, b)
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return string(ca) == string(cb)
}
