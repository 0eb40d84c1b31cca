package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/hubsnap/hubsnap/mcpserver"
)

// The life of a stdio session (stdio.go): every request answered before
// the end of input, a pipe read in pieces, malformed lines answered, and
// a prompt return when the context ends.

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
	go func() { errc <- ServeStdio(context.Background(), srv, in, &out) }()
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
	var tables mcpserver.ListTablesOutput
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
	go func() { errc <- ServeStdio(context.Background(), srv, pr, &out) }()
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
		errc <- ServeStdio(context.Background(), srv, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out)
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
			go func() { errc <- ServeStdio(ctx, srv, pr, out) }()

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
