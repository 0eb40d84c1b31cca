package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// badAnswers are answers that go-sdk cannot send: not JSON, cut short,
// invalid UTF-8 (as a damaged byte of a stored name makes), a member
// twice.
var badAnswers = map[string][]byte{
	"cut":       []byte(`{"name":"users","columns":[{"name":"id"`),
	"not json":  []byte(`{"name":"us"ers"}`),
	"utf-8":     []byte("{\"name\":\"us\xffers\"}"),
	"twice":     []byte(`{"name":"users","name":"orders"}`),
	"two":       []byte(`{"name":"users"} {}`),
	"empty":     nil,
	"a control": []byte("{\"name\":\"us\x01ers\"}"),
}

// addBadTools registers, on srv, a tool answering each of badAnswers, and
// one failing with a damaged index.
func addBadTools(srv *Server) {
	for name, answer := range badAnswers {
		addTool[struct{}, struct{}](srv, &mcp.Tool{Name: "bad_" + strings.ReplaceAll(name, " ", "_")}, nil,
			func(context.Context, *mcp.CallToolRequest, struct{}) ([]byte, error) { return answer, nil })
	}
	addTool[struct{}, struct{}](srv, &mcp.Tool{Name: "damaged"}, nil,
		func(context.Context, *mcp.CallToolRequest, struct{}) ([]byte, error) {
			return nil, fmt.Errorf("read index: %w: a page fails its checksum", store.ErrCorrupt)
		})
}

// checkInternal fails unless result is the tool error INTERNAL.
func checkInternal(tb testing.TB, what string, result json.RawMessage) {
	tb.Helper()
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &res); err != nil || !res.IsError || len(res.Content) != 1 ||
		!strings.Contains(res.Content[0].Text, `"code":"INTERNAL"`) {
		tb.Errorf("%s: %s, want the tool error INTERNAL", what, result)
	}
}

// TestBadAnswerIsInternalOverStdio: an answer that is not valid JSON is
// answered INTERNAL, logged, over go-sdk's own stdio transport (the wire
// that dropped such answers; package transport's reader adds nothing to
// it here); go-sdk alone never answered the call.
func TestBadAnswerIsInternalOverStdio(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	var logs lockedBuffer
	var damaged atomic.Int32
	srv := New(st, Options{Target: shopDev, Version: "test", Log: slog.New(slog.NewTextHandler(&logs, nil)),
		OnDamage: func(error) { damaged.Add(1) }})
	t.Cleanup(srv.Shutdown)
	addBadTools(srv)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- srv.mcp.Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW})
		outW.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id int) json.RawMessage {
		t.Helper()
		deadline := time.After(patience)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended without an answer to %d", id)
				}
				var r struct {
					ID     int             `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if json.Unmarshal([]byte(l), &r) == nil && r.ID == id {
					if r.Error != nil {
						return r.Error
					}
					return r.Result
				}
			case <-deadline:
				t.Fatalf("no answer to request %d within %v", id, patience)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	for name := range badAnswers {
		id++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bad_%s","arguments":{}}}`,
			id, strings.ReplaceAll(name, " ", "_")))
		checkInternal(t, name, answer(id))
	}
	id++
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"damaged","arguments":{}}}`, id))
	checkInternal(t, "damaged", answer(id))
	inW.Close()
	if err := wait(t, errc, "the session to end"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(logs.String(), "the answer is not valid JSON"); got != len(badAnswers) {
		t.Errorf("the log tells %d bad answers, want %d:\n%s", got, len(badAnswers), logs.String())
	}
	if got := damaged.Load(); got != 1 {
		t.Errorf("OnDamage called %d times, want once (for the damaged index only)", got)
	}
}

// TestBadAnswerIsInternalOverHTTP: the same over go-sdk's own Streamable
// HTTP handler, where go-sdk alone left the call's stream without an
// answer.
func TestBadAnswerIsInternalOverHTTP(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	addBadTools(srv)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.mcp }, nil))
	t.Cleanup(hs.Close)
	resp, _ := postMCP(t, context.Background(), hs.URL, "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %s, no session", resp.Status)
	}
	postMCP(t, context.Background(), hs.URL, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	for name := range badAnswers {
		id++
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bad_%s","arguments":{}}}`,
			id, strings.ReplaceAll(name, " ", "_"))
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		resp, text := postMCP(t, ctx, hs.URL, sid, body)
		cancel()
		if resp == nil {
			t.Errorf("%s: no answer within %v", name, patience)
			continue
		}
		var result json.RawMessage
		for l := range strings.SplitSeq(text, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				var r struct {
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal([]byte(d), &r) == nil && r.Result != nil {
					result = r.Result
				}
			}
		}
		if result == nil {
			t.Errorf("%s: %s with no answer: %q", name, resp.Status, text)
			continue
		}
		checkInternal(t, name, result)
	}
}

// postMCP posts body to url within ctx, in session sid when not empty: nil
// when no whole answer came before ctx ended.
func postMCP(tb testing.TB, ctx context.Context, url, sid, body string) (*http.Response, string) {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ""
		}
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ""
		}
		tb.Fatal(err)
	}
	return resp, string(b)
}
