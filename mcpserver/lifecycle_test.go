package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// patience bounds every wait on a channel in these tests; a correct server
// answers in milliseconds.
const patience = 5 * time.Second

// concurrentCalls mixes every tool, successes and errors.
var concurrentCalls = []struct {
	tool string
	args map[string]any
}{
	{"schema_list_tables", map[string]any{}},
	{"schema_list_tables", map[string]any{"connection": "main"}},
	{"schema_get_table", map[string]any{"table": "posts"}},
	{"schema_get_table", map[string]any{"table": "order_lines"}},
	{"schema_get_table", map[string]any{"table": "analytics.users"}},
	{"schema_get_table", map[string]any{"table": "users"}},    // AMBIGUOUS
	{"schema_get_table", map[string]any{"table": "invoices"}}, // NOT_FOUND
	{"logic_list", map[string]any{}},
	{"logic_get", map[string]any{"name": "purchase_item"}},
	{"logic_get", map[string]any{"name": "admin/users"}},
	{"logic_get", map[string]any{"name": "../x"}}, // INVALID_ARGUMENT
	{"release_info", map[string]any{}},
}

// 50 calls of every tool, from three sessions at once, each answered as the
// same call is answered alone. "cold" sends them to a server that has
// answered nothing yet (a fresh index, nothing prepared), as a client that
// pipes its requests does; "warm" to one that answered each call once.
func TestConcurrentCalls(t *testing.T) {
	// The answers one at a time, from another server.
	ref := shopSession(t)
	want := make([]string, len(concurrentCalls))
	for i, c := range concurrentCalls {
		b, err := json.Marshal(call(t, ref, c.tool, c.args))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = string(b)
	}

	for _, warm := range []bool{false, true} {
		t.Run(map[bool]string{false: "cold", true: "warm"}[warm], func(t *testing.T) {
			st := openStore(t)
			putCurrent(t, st, shopSnapshot(t))
			srv := newServer(t, st)
			sessions := []*mcp.ClientSession{connect(t, srv), connect(t, srv), connect(t, srv)}
			if warm {
				for _, c := range concurrentCalls {
					call(t, sessions[0], c.tool, c.args)
				}
			}

			const n = 50
			type answer struct {
				i   int
				got string
				err error
			}
			answers := make(chan answer, n)
			start := make(chan struct{})
			for k := range n {
				go func() {
					<-start
					i := k % len(concurrentCalls)
					c := concurrentCalls[i]
					res, err := sessions[k%len(sessions)].CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
					if err != nil {
						answers <- answer{i: i, err: err}
						return
					}
					b, err := json.Marshal(res)
					answers <- answer{i: i, got: string(b), err: err}
				}()
			}
			close(start)
			timeout := time.After(patience)
			for k := range n {
				select {
				case a := <-answers:
					c := concurrentCalls[a.i]
					if a.err != nil {
						t.Errorf("%s(%s): %v", c.tool, short(c.args), a.err)
					} else if a.got != want[a.i] {
						t.Errorf("%s(%s) concurrently = %s\nalone = %s", c.tool, short(c.args), a.got, want[a.i])
					}
				case <-timeout:
					t.Fatalf("only %d of %d concurrent calls answered in %v", k, n, patience)
				}
			}
		})
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

// A panicking handler answers -32603 without its panic text, is logged,
// and the server keeps serving.
func TestPanickingHandlerAnswersInternalError(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	var logs lockedBuffer
	srv := New(st, Options{Target: shopDev, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(srv.Shutdown)
	mcp.AddTool(srv.mcp, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("secret panic detail")
	})
	cs := connect(t, srv)

	for range 2 { // twice: the first panic did not break anything
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom"})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("CallTool(boom) error = %v (%T), want a *jsonrpc.Error", err, err)
		}
		if werr.Code != jsonrpc.CodeInternalError {
			t.Errorf("code = %d, want %d", werr.Code, jsonrpc.CodeInternalError)
		}
		if strings.Contains(werr.Message, "secret panic detail") || strings.Contains(string(werr.Data), "secret panic detail") {
			t.Errorf("the panic reached the client: %+v", werr)
		}
	}
	if !strings.Contains(logs.String(), "secret panic detail") {
		t.Errorf("the panic was not logged; log:\n%s", logs.String())
	}

	got := success[ListTablesOutput](t, call(t, cs, "schema_list_tables", map[string]any{}))
	if len(got.Tables) != 6 {
		t.Errorf("after the panic schema_list_tables has %d tables, want 6", len(got.Tables))
	}
	if res := call(t, cs, "logic_get", map[string]any{"name": "purchase_item"}); res.IsError {
		t.Errorf("after the panic logic_get: %s", text(t, res))
	}
}

// addBlockingTool adds a tool "block" that signals on started and then
// waits for its context to end.
func addBlockingTool(srv *Server) (started <-chan struct{}) {
	ch := make(chan struct{}, 16)
	mcp.AddTool(srv.mcp, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ch <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	return ch
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

// Shutdown cancels the calls in flight: their clients get an answer at
// once instead of waiting.
func TestShutdownCancelsInFlightCalls(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	started := addBlockingTool(srv)
	cs := connect(t, srv)

	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		done <- outcome{res, err}
	}()
	wait(t, started, "the blocking call to start")
	srv.Shutdown()
	o := wait(t, done, "the blocking call to return after Shutdown")
	if o.err == nil && !o.res.IsError {
		t.Errorf("a cancelled call answered success: %s", short(o.res))
	}
}
