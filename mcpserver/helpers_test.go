package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver/mcpservertest"
	"github.com/hubsnap/hubsnap/store"
)

// The fixture and the checks of an answer are package mcpservertest's,
// shared with package transport's tests; these names keep them short here.
var (
	shopDev     = mcpservertest.ShopDev
	fixedOrigin = mcpservertest.FixedOrigin
)

func shopSnapshot(tb testing.TB) *snapshot.Snapshot {
	tb.Helper()
	return mcpservertest.ShopSnapshot(tb)
}
func readFixture(tb testing.TB) string     { tb.Helper(); return mcpservertest.ReadFixture(tb) }
func openStore(tb testing.TB) *store.Store { tb.Helper(); return mcpservertest.OpenStore(tb) }
func putCurrent(tb testing.TB, st *store.Store, snap *snapshot.Snapshot) {
	tb.Helper()
	mcpservertest.PutCurrent(tb, st, snap)
}

// emptySnapshot is a release of shop/dev with no tables and no logics.
func emptySnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_empty", Project: "shop", Environment: "dev", Version: 7,
			CreatedAt: "2026-10-01T00:00:00Z"},
		Origin:      fixedOrigin,
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}},
	}
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
func sessionWith(tb testing.TB, snap *snapshot.Snapshot) *mcp.ClientSession {
	tb.Helper()
	st := openStore(tb)
	putCurrent(tb, st, snap)
	return connect(tb, newServer(tb, st))
}

func call(tb testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	tb.Helper()
	return mcpservertest.Call(tb, cs, tool, args)
}
func short(args any) string { return mcpservertest.Short(args) }
func text(tb testing.TB, res *mcp.CallToolResult) string {
	tb.Helper()
	return mcpservertest.Text(tb, res)
}
func success[T any](tb testing.TB, res *mcp.CallToolResult) T {
	tb.Helper()
	return mcpservertest.Success[T](tb, res)
}
func wantCode(tb testing.TB, res *mcp.CallToolResult, want store.Code) string {
	tb.Helper()
	return mcpservertest.WantCode(tb, res, want)
}
func jsonEqual(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	return mcpservertest.JSONEqual(tb, a, b)
}

// raw returns the structured output of a successful call as generic JSON,
// to check which fields are present.
func raw(tb testing.TB, res *mcp.CallToolResult) map[string]any {
	tb.Helper()
	return success[map[string]any](tb, res)
}

// errorDoc is the error document of an isError result.
type errorDoc = mcpservertest.ErrorDoc

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
