package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A message over maxLine, or nested deeper than Go decodes, is answered
// -32600 with its id when the id is at either end of it, and the session
// goes on: the call after it is answered (issue 23, item 9).
func TestServeStdioOversizedMessages(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	huge := `{"query":"user","kinds":[` + strings.Repeat(`"table",`, maxLine/8) + `"table"]}`
	deep := strings.Repeat("[", mcpserver.MaxJSONDepth+1) + strings.Repeat("]", mcpserver.MaxJSONDepth+1)
	lines := []string{
		stdioLines[0], stdioLines[1],
		`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"schema_search","arguments":` + huge + `}}`,
		`{"method":"tools/call","params":{"name":"schema_search","arguments":` + huge + `},"jsonrpc":"2.0","id":"thirty-one"}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"schema_search","arguments":` + huge + `},"id":32,"x":1}`,
		`{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"name":"schema_search","arguments":{"query":` + deep + `}}}`,
		`{"jsonrpc":"2.0","id":34,"method":"tools/call","params":{"name":"logic_list","arguments":{}}}`,
	}
	var out lockedBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- ServeStdio(context.Background(), srv, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out)
	}()
	if err := wait(t, errc, "ServeStdio to return at the end of input"); err != nil {
		t.Fatalf("ServeStdio = %v, want nil", err)
	}
	got := map[string]stdioResponse{}
	for line := range strings.Lines(out.String()) {
		var r stdioResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line is not JSON: %v: %.200q", err, line)
		}
		got[string(r.ID)] = r
	}
	for id, want := range map[string]string{"30": "over 1048576 bytes", `"thirty-one"`: "over 1048576 bytes",
		"null": "over 1048576 bytes", "33": "nested deeper than 1000 levels"} {
		r, ok := got[id]
		if !ok || r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, want) {
			t.Errorf("answer with id %s: %+v; want -32600 saying %q", id, r, want)
		}
	}
	if r := got["34"]; r.Result == nil || r.Result.IsError {
		t.Errorf("the call after the oversized messages was not answered; output:\n%.2000s", out.String())
	}
}

// The id of an oversized message is found at its start or at its end,
// only as a member of the message itself.
func TestOversizedID(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"` + strings.Repeat("b", 3*idWindow), "7"},
		{`{"id":"a\"b","params":[` + strings.Repeat("1,", 3*idWindow), `"a\"b"`},
		{`{"jsonrpc":"2.0","id":-3,"method":"x"}`, "-3"},
		{`{"method":"x","params":{"a":"` + strings.Repeat("b", 3*idWindow) + `"},"jsonrpc":"2.0","id":12}`, "12"},
		{`{"method":"x","params":{"a":"` + strings.Repeat("b", 3*idWindow) + `"},"id": "q" }` + "\n", `"q"`},
		// Not the message's own id: one inside the params, at either end.
		{`{"params":{"id":5,"a":"` + strings.Repeat("b", 3*idWindow) + `"}}`, ""},
		{`{"method":"x","params":{"a":"` + strings.Repeat("b", 3*idWindow) + `","id":5}}`, ""},
		{`{"method":"x","params":{"a":"` + strings.Repeat("b", 3*idWindow) + `\",\"id\":5}"}`, ""},
		// An id that is neither a number nor a string.
		{`{"id":{"x":1},"params":"` + strings.Repeat("b", 3*idWindow), ""},
		{`{"id":null,"params":"` + strings.Repeat("b", 3*idWindow), ""},
		// Nowhere near either end.
		{`{"a":"` + strings.Repeat("b", 3*idWindow) + `","id":9,"c":"` + strings.Repeat("d", 3*idWindow) + `"}`, ""},
	} {
		o := &oversized{}
		for chunk := range chunks(c.msg, 1000) {
			o.add([]byte(chunk))
		}
		if got := string(o.id()); got != c.want {
			t.Errorf("id of %.60s...%.40s = %q, want %q", c.msg, c.msg[max(0, len(c.msg)-40):], got, c.want)
		}
	}
}

// chunks cuts s into pieces of n bytes, as a reader's buffer would.
func chunks(s string, n int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

// Over HTTP, a body of a shape go-sdk is not given gets 400 with the
// JSON-RPC error and the request's id, before anything is decoded; the
// session goes on.
func TestHTTPMessageShape(t *testing.T) {
	env := startHTTP(t, HTTPOptions{})
	sid := env.initialize(t, "")
	objects := strings.Repeat(`{},`, mcpserver.MaxMessageValues) + `{}`
	for _, c := range []struct{ body, id, want string }{
		{`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"release_info","arguments":{},"_meta":{"x":[` +
			objects + `]}}}`, "41", "more than 10000 values"},
		{`[` + objects + `]`, "null", "more than 10000 values"},
		{`{"method":"ping","params":` + strings.Repeat("[", mcpserver.MaxJSONDepth+1) + strings.Repeat("]", mcpserver.MaxJSONDepth+1) +
			`,"jsonrpc":"2.0","id":"p"}`, `"p"`, "nested deeper than 1000 levels"},
	} {
		resp, body := rawHTTP{url: env.url, session: sid, body: c.body}.do(t)
		var r stdioResponse
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal([]byte(body), &r) != nil || string(r.ID) != c.id ||
			r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%.60s: %s %.300s; want 400 with -32600 saying %q, id %s", c.body, resp.Status, body, c.want, c.id)
		}
	}
	if resp, body := (rawHTTP{url: env.url, session: sid, body: toolsListBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Errorf("tools/list after: %s %.200s", resp.Status, body)
	}
}
