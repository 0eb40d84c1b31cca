package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// stdioLines are a client's whole conversation: initialize, then calls of
// every tool, an error, an unknown tool and a ping, written before any
// answer is read and followed by the end of input.
var stdioLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"schema_list_tables","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"schema_get_table","arguments":{"table":"posts"}}}`,
	`{"jsonrpc":"2.0","id":"five","method":"tools/call","params":{"name":"logic_get","arguments":{"name":"refund_item"}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"logic_list","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"release_info","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
}

// stdioResponse is a JSON-RPC response line.
type stdioResponse struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		Tools             []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *jsonrpc.Error `json:"error"`
}

// responses parses out's lines by id; notifications are left out.
func responses(tb testing.TB, out string) map[string]stdioResponse {
	tb.Helper()
	got := map[string]stdioResponse{}
	for line := range strings.Lines(out) {
		var r stdioResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			tb.Fatalf("output line is not JSON: %v: %q", err, line)
		}
		if r.Method != "" {
			continue
		}
		if _, dup := got[string(r.ID)]; dup {
			tb.Errorf("two responses for id %s", r.ID)
		}
		got[string(r.ID)] = r
	}
	return got
}

// A client that writes all its requests and closes its input still gets
// an answer to every request, and ServeStdio returns nil. "cold" is a
// server that has answered nothing before, as `... | hubsnap serve` meets
// it; "warm" one that answered every tool once over another session.
func TestServeStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	for _, warm := range []bool{false, true} {
		t.Run(map[bool]string{false: "cold", true: "warm"}[warm], func(t *testing.T) {
			testServeStdioEOF(t, warm)
		})
	}
}

// warmUp calls every tool once over its own session.
func warmUp(tb testing.TB, srv *Server) {
	tb.Helper()
	cs := connect(tb, srv)
	for _, c := range concurrentCalls {
		call(tb, cs, c.tool, c.args)
	}
}

func testServeStdioEOF(t *testing.T, warm bool) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	if warm {
		warmUp(t, srv)
	}

	var out lockedBuffer
	in := strings.NewReader(strings.Join(stdioLines, "\n") + "\n")
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeStdio(context.Background(), in, &out) }()
	if err := wait(t, errc, "ServeStdio to return at the end of input"); err != nil {
		t.Fatalf("ServeStdio = %v, want nil", err)
	}

	got := responses(t, out.String())
	for _, id := range []string{"1", "2", "3", "4", `"five"`, "6", "7", "8", "9"} {
		if _, ok := got[id]; !ok {
			t.Errorf("no response for id %s; output:\n%s", id, out.String())
		}
	}
	if len(got) != 9 {
		t.Errorf("got %d responses, want 9", len(got))
	}
	if r := got["2"]; r.Result == nil || len(r.Result.Tools) != len(toolNames) {
		t.Errorf("tools/list answered %s", short(r))
	}
	for _, id := range []string{"3", "4", "6", "7"} {
		if r := got[id]; r.Result == nil || r.Result.IsError || len(r.Result.StructuredContent) == 0 {
			t.Errorf("id %s: %s", id, short(r))
		}
	}
	var tables ListTablesOutput
	if r := got["3"]; r.Result != nil {
		if err := json.Unmarshal(r.Result.StructuredContent, &tables); err != nil || len(tables.Tables) != 6 {
			t.Errorf("schema_list_tables over stdio: %s (%v)", r.Result.StructuredContent, err)
		}
	}
	if r := got[`"five"`]; r.Result == nil || !r.Result.IsError || !strings.Contains(string(r.Result.Content[0]), "NOT_FOUND") {
		t.Errorf("logic_get of an unknown logic: %s", short(r))
	}
	if r := got["8"]; r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: %s, want error %d", short(r), jsonrpc.CodeInvalidParams)
	}
}

// The same through a pipe whose writer closes it, in small pieces: lines
// split across reads are still counted. (Warm, so that this tests the
// line handling alone; the cold case is above.)
func TestServeStdioThroughAPipeInPieces(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	warmUp(t, srv)

	pr, pw := io.Pipe()
	t.Cleanup(func() { pr.Close() })
	var out lockedBuffer
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeStdio(context.Background(), pr, &out) }()
	go func() {
		all := strings.Join(stdioLines, "\n") + "\n"
		for len(all) > 0 {
			n := min(7, len(all))
			if _, err := pw.Write([]byte(all[:n])); err != nil {
				pw.CloseWithError(err)
				return
			}
			all = all[n:]
		}
		pw.Close()
	}()
	if err := wait(t, errc, "ServeStdio to return at the end of input"); err != nil {
		t.Fatalf("ServeStdio = %v, want nil", err)
	}
	if got := responses(t, out.String()); len(got) != 9 {
		t.Errorf("got %d responses, want 9; output:\n%s", len(got), out.String())
	}
}

// Lines go-sdk cannot take (not JSON, a batch, not JSON-RPC) are answered
// with a JSON-RPC error and do not end the session: the requests after
// them are served.
func TestServeStdioAnswersMalformedLines(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)

	lines := []string{
		stdioLines[0], stdioLines[1],
		`this is not json`,
		`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":21,"method":7}`,
		`"just a string"`,
		`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"logic_list","arguments":{}}}`,
	}
	var out lockedBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- srv.ServeStdio(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out)
	}()
	if err := wait(t, errc, "ServeStdio to return at the end of input"); err != nil {
		t.Fatalf("ServeStdio = %v, want nil", err)
	}
	var codes []int64
	var served bool
	for line := range strings.Lines(out.String()) {
		var r stdioResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line is not JSON: %v: %q", err, line)
		}
		if r.Error != nil {
			codes = append(codes, r.Error.Code)
		}
		if string(r.ID) == "22" && r.Result != nil && !r.Result.IsError {
			served = true
		}
	}
	if !served {
		t.Errorf("the call after the malformed lines was not answered; output:\n%s", out.String())
	}
	if len(codes) != 4 || codes[0] != jsonrpc.CodeParseError {
		t.Errorf("error codes = %v, want -32700 then three -32600; output:\n%s", codes, out.String())
	}
	for _, c := range codes[1:] {
		if c != jsonrpc.CodeInvalidRequest {
			t.Errorf("error codes = %v, want -32700 then three -32600", codes)
			break
		}
	}
}

// notifyingWriter is a lockedBuffer that signals each complete line.
type notifyingWriter struct {
	lockedBuffer
	lines chan string
	mu    sync.Mutex
	part  string
}

func (w *notifyingWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part += string(p[:n])
	for {
		i := strings.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		select {
		case w.lines <- w.part[:i]:
		default:
		}
		w.part = w.part[i+1:]
	}
	return n, err
}

// Cancelling ServeStdio's context while the client keeps its input open
// returns promptly with nil; so it does with a call in flight, which is
// cancelled.
func TestServeStdioReturnsWhenContextEnds(t *testing.T) {
	for _, inFlight := range []bool{false, true} {
		t.Run(fmt.Sprintf("call in flight %v", inFlight), func(t *testing.T) {
			st := openStore(t)
			putCurrent(t, st, shopSnapshot(t))
			srv := newServer(t, st)
			started := addBlockingTool(srv)

			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() })
			out := &notifyingWriter{lines: make(chan string, 64)}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- srv.ServeStdio(ctx, pr, out) }()

			writeLine := func(s string) {
				t.Helper()
				written := make(chan error, 1)
				go func() { _, err := io.WriteString(pw, s+"\n"); written <- err }()
				if err := wait(t, written, "the server to read a line"); err != nil {
					t.Fatal(err)
				}
			}
			writeLine(stdioLines[0])
			wait(t, out.lines, "the initialize response")
			writeLine(stdioLines[1])
			writeLine(stdioLines[3])
			wait(t, out.lines, "the schema_list_tables response")
			if inFlight {
				writeLine(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
				wait(t, started, "the blocking call to start")
			}

			cancel()
			if err := wait(t, errc, "ServeStdio to return after its context ended"); err != nil {
				t.Errorf("ServeStdio = %v, want nil", err)
			}
		})
	}
}
