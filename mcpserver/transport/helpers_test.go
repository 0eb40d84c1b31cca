package transport

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/mcpservertest"
	"github.com/hubsnap/hubsnap/store"
)

// The transports' tests serve the shop fixture of package mcpservertest
// (shared with mcpserver's tests) from a real index, with a real
// mcpserver.Server, to go-sdk's client over real pipes and real HTTP.

// patience bounds every wait on a channel in these tests; a correct server
// answers in milliseconds.
const patience = 5 * time.Second

// shopDev is the target every test server serves.
var shopDev = mcpservertest.ShopDev

func shopSnapshot(tb testing.TB) *snapshot.Snapshot {
	tb.Helper()
	return mcpservertest.ShopSnapshot(tb)
}
func openStore(tb testing.TB) *store.Store { tb.Helper(); return mcpservertest.OpenStore(tb) }
func putCurrent(tb testing.TB, st *store.Store, snap *snapshot.Snapshot) {
	tb.Helper()
	mcpservertest.PutCurrent(tb, st, snap)
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

// errorDoc is the error document of an isError result.
type errorDoc = mcpservertest.ErrorDoc

// toolNames are the tools hubsnap serves.
var toolNames = []string{"logic_get", "logic_list", "release_check", "release_info", "schema_diagram", "schema_diff",
	"schema_get_table", "schema_join_path", "schema_list_tables", "schema_search"}

// readResource reads uri and returns its one JSON text.
func readResource(tb testing.TB, cs *mcp.ClientSession, uri string) (string, error) {
	tb.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		tb.Fatalf("%s: contents %+v", uri, res.Contents)
	}
	return res.Contents[0].Text, nil
}

// toolText is the text of a result's one text block, "" when it has
// another shape.
func toolText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// newServer returns a server of shop/dev over st. Its in-flight calls are
// cancelled when the test ends.
func newServer(tb testing.TB, st *store.Store) *mcpserver.Server {
	tb.Helper()
	srv := mcpserver.New(st, mcpserver.Options{Target: shopDev, Version: "test"})
	tb.Cleanup(srv.Shutdown)
	return srv
}

// connect opens a client session to srv over in-memory transports (no
// transport of this package: what another client did before). When the
// test ends, both ends are closed.
func connect(tb testing.TB, srv *mcpserver.Server) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, stt, nil)
	if err != nil {
		tb.Fatalf("server Connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatalf("client Connect: %v", err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs
}

// everyToolCall is one typical call of every tool.
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

// addBlockingTool adds a tool "block" that signals on started and then
// waits for its context to end.
func addBlockingTool(srv *mcpserver.Server) (started <-chan struct{}) {
	ch := make(chan struct{}, 16)
	mcp.AddTool(srv.MCP(), &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ch <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	return ch
}

// warmCalls are calls of every tool family, that warmUp makes once.
var warmCalls = []struct {
	tool string
	args map[string]any
}{
	{"schema_list_tables", map[string]any{}},
	{"schema_get_table", map[string]any{"table": "posts"}},
	{"schema_get_table", map[string]any{"table": "invoices"}}, // NOT_FOUND
	{"logic_list", map[string]any{}},
	{"logic_get", map[string]any{"name": "purchase_item"}},
	{"release_info", map[string]any{}},
}

// warmUp calls every tool once over its own session.
func warmUp(tb testing.TB, srv *mcpserver.Server) {
	tb.Helper()
	cs := connect(tb, srv)
	for _, c := range warmCalls {
		call(tb, cs, c.tool, c.args)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// wait receives from ch or fails the test after patience.
func wait[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(patience):
		tb.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
