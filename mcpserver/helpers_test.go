package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// shopDev is the target every test server serves.
var shopDev = store.Target{Project: "shop", Environment: "dev"}

// fixedOrigin replaces the fixture's origin so that release_info (syncedAt
// above all) is the same on every run.
var fixedOrigin = store.Origin{
	Source:   store.SourceImport,
	Digest:   "sha256:" + strings.Repeat("ab", 32),
	SyncedAt: "2026-11-02T09:30:00Z",
}

// shopSnapshot decodes testdata/snapshots/shop.json through the real
// decoder (which drops its planted secrets) and fixes its origin.
func shopSnapshot(tb testing.TB) *store.Snapshot {
	tb.Helper()
	snap, err := snapshot.Decode([]byte(readFixture(tb)))
	if err != nil {
		tb.Fatalf("decode shop.json: %v", err)
	}
	snap.Origin = fixedOrigin
	return snap
}

// readFixture returns testdata/snapshots/shop.json.
func readFixture(tb testing.TB) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "snapshots", "shop.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// emptySnapshot is a release of shop/dev with no tables and no logics.
func emptySnapshot() *store.Snapshot {
	return &store.Snapshot{
		Release: store.Release{ID: "rel_empty", Project: "shop", Environment: "dev", Version: 7,
			CreatedAt: "2026-10-01T00:00:00Z"},
		Origin:      fixedOrigin,
		Connections: []store.Connection{{Name: "main", Engine: "postgres"}},
	}
}

// openStore opens a fresh index in a temporary folder, closed when the test
// ends.
func openStore(tb testing.TB) *store.Store {
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

// putCurrent stores snap, its logics analysed (analysis_test.go), and
// makes it current.
func putCurrent(tb testing.TB, st *store.Store, snap *store.Snapshot) {
	tb.Helper()
	file := store.FileState{Digest: "sha256:" + strings.Repeat("f", 64), Size: 1234, MTime: 1_700_000_000_000_000_000}
	putAnalysed(tb, st, snap, file, true)
}

// newServer returns a server of shop/dev over st. Its in-flight calls are
// cancelled when the test ends.
func newServer(tb testing.TB, st *store.Store) *Server {
	tb.Helper()
	srv := New(st, Options{Target: shopDev, Version: "test"})
	tb.Cleanup(srv.Shutdown)
	return srv
}

// connect opens a client session to srv over in-memory transports. When
// the test ends, srv is shut down and both ends are closed.
func connect(tb testing.TB, srv *Server) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(ctx, stt, nil)
	if err != nil {
		tb.Fatalf("server Connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatalf("client Connect: %v", err)
	}
	tb.Cleanup(func() {
		// Cancel what is still in flight, so a stuck call cannot hang the
		// test binary; then wait, boundedly, for the session to end.
		srv.Shutdown()
		cs.Close()
		ended := make(chan struct{})
		go func() { ss.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(patience):
			tb.Errorf("the server session did not end within %v of Shutdown and Close", patience)
		}
	})
	return cs
}

// shopSession is the usual setup: the shop fixture current in a fresh
// index, a server over it and a client session.
func shopSession(tb testing.TB) *mcp.ClientSession {
	tb.Helper()
	st := openStore(tb)
	putCurrent(tb, st, shopSnapshot(tb))
	return connect(tb, newServer(tb, st))
}

// sessionWith is shopSession for another snapshot.
func sessionWith(tb testing.TB, snap *store.Snapshot) *mcp.ClientSession {
	tb.Helper()
	st := openStore(tb)
	putCurrent(tb, st, snap)
	return connect(tb, newServer(tb, st))
}

// call calls a tool and fails the test on a protocol error. args may be
// anything that marshals to JSON, including json.RawMessage.
func call(tb testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		tb.Fatalf("%s(%s): protocol error: %v", tool, short(args), err)
	}
	return res
}

// short renders args for a failure message, cutting long values.
func short(args any) string {
	b, err := json.Marshal(args)
	if err != nil {
		return "<unmarshalable>"
	}
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// text returns the one text block of res.
func text(tb testing.TB, res *mcp.CallToolResult) string {
	tb.Helper()
	if len(res.Content) != 1 {
		tb.Fatalf("result has %d content blocks, want 1: %s", len(res.Content), short(res))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		tb.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// success returns the structured output of a successful call decoded into T,
// after checking that the text block holds the same JSON.
func success[T any](tb testing.TB, res *mcp.CallToolResult) T {
	tb.Helper()
	var out T
	if res.IsError {
		tb.Fatalf("isError result: %s", text(tb, res))
	}
	if res.StructuredContent == nil {
		tb.Fatalf("no structuredContent; text: %s", text(tb, res))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	if !jsonEqual(tb, structured, []byte(text(tb, res))) {
		tb.Errorf("text and structuredContent differ:\ntext:       %s\nstructured: %s", text(tb, res), structured)
	}
	if err := json.Unmarshal(structured, &out); err != nil {
		tb.Fatalf("decode structuredContent into %T: %v", out, err)
	}
	return out
}

// raw returns the structured output of a successful call as generic JSON,
// to check which fields are present.
func raw(tb testing.TB, res *mcp.CallToolResult) map[string]any {
	tb.Helper()
	return success[map[string]any](tb, res)
}

// errorDoc is the error document of an isError result.
type errorDoc struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// failed checks that res is an isError result with exactly the docs/tools.md
// document as its text, and returns its code and message.
func failed(tb testing.TB, res *mcp.CallToolResult) (code, message string) {
	tb.Helper()
	if !res.IsError {
		tb.Fatalf("got a successful result, want an error: %s", text(tb, res))
	}
	if res.StructuredContent != nil {
		tb.Errorf("an error result carries structuredContent: %s", short(res.StructuredContent))
	}
	t := text(tb, res)
	dec := json.NewDecoder(strings.NewReader(t))
	dec.DisallowUnknownFields()
	var doc errorDoc
	if err := dec.Decode(&doc); err != nil {
		tb.Fatalf("error text is not {\"error\":{\"code\",\"message\"}}: %v\ntext: %s", err, t)
	}
	if doc.Error.Code == "" || doc.Error.Message == "" {
		tb.Fatalf("error text lacks a code or message: %s", t)
	}
	return doc.Error.Code, doc.Error.Message
}

// wantCode checks that res is a tool error with code want and returns its
// message.
func wantCode(tb testing.TB, res *mcp.CallToolResult, want store.Code) string {
	tb.Helper()
	code, msg := failed(tb, res)
	if code != string(want) {
		tb.Fatalf("error code = %s (%s), want %s", code, msg, want)
	}
	return msg
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(tb testing.TB, a, b []byte) bool {
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

// toolNames are the tools hubsnap serves.
var toolNames = []string{"logic_get", "logic_list", "release_check", "release_info", "schema_diagram", "schema_diff",
	"schema_get_table", "schema_join_path", "schema_list_tables", "schema_search"}

// everyToolCall is one typical call of every tool, used where every tool
// must behave alike (no release, secrets).
var everyToolCall = []struct {
	tool string
	args map[string]any
}{
	{"schema_list_tables", map[string]any{}},
	{"schema_get_table", map[string]any{"table": "posts"}},
	{"logic_list", map[string]any{}},
	{"logic_get", map[string]any{"name": "purchase_item"}},
	{"release_info", map[string]any{}},
	{"schema_search", map[string]any{"query": "user"}},
	{"schema_join_path", map[string]any{"from": "posts", "to": "items"}},
	{"schema_diff", map[string]any{"from": "rel_42"}},
	{"schema_diagram", map[string]any{"table": "posts"}},
	{"release_check", map[string]any{}},
}
