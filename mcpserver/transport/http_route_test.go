package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The era of a request is read from the protocol version it states
// (issue 23, item 5), never from a header that merely exists.
func TestEraOf(t *testing.T) {
	const meta26 = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`
	for _, c := range []struct {
		name    string
		headers map[string]string
		method  string
		params  string
		modern  bool
	}{
		{"initialize with Mcp-Method (mcp-remote 0.15.1)", map[string]string{"Mcp-Method": "initialize"},
			"initialize", `{"protocolVersion":"2025-11-25"}`, false},
		{"initialize proposing 2026-07-28", nil, "initialize", `{"protocolVersion":"2026-07-28"}`, false},
		// A request of 2026-07-28 that says so: initialize is a removed
		// method there (the stateless handler answers -32601, 404).
		{"initialize with a 2026-07-28 header", map[string]string{"Mcp-Protocol-Version": "2026-07-28"},
			"initialize", `{"protocolVersion":"2026-07-28"}`, true},
		{"initialize with 2026-07-28 in _meta", nil, "initialize",
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, true},
		{"initialize with a 2025-11-25 header", map[string]string{"Mcp-Protocol-Version": "2025-11-25"},
			"initialize", `{"protocolVersion":"2025-11-25"}`, false},
		{"2025-11-25 header and Mcp-Method", map[string]string{"Mcp-Protocol-Version": "2025-11-25",
			"Mcp-Method": "tools/list"}, "tools/list", "", false},
		{"Mcp-Method alone", map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "x"}, "tools/list", "", false},
		{"no version at all (2025-03-26)", nil, "tools/list", "", false},
		{"2026-07-28 header", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "tools/list", "", true},
		{"a later version's header", map[string]string{"Mcp-Protocol-Version": "2027-01-01"}, "tools/list", "", true},
		{"2026-07-28 in _meta only", nil, "tools/list", meta26, true},
		{"2025-06-18 in _meta", nil, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}`, false},
		{"a header that is no version, 2026-07-28 in _meta", map[string]string{"Mcp-Protocol-Version": "zzz"},
			"tools/list", meta26, true},
		{"a header that is no version, nothing else", map[string]string{"Mcp-Protocol-Version": "zzz"}, "tools/list", "", false},
		{"the header over _meta", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, "tools/list", meta26, false},
		{"server/discover without a version", nil, "server/discover", "", true},
		{"subscriptions/listen without a version", nil, "subscriptions/listen", "", true},
		{"server/discover under a 2025-11-25 header", map[string]string{"Mcp-Protocol-Version": "2025-11-25"},
			"server/discover", "", false},
	} {
		h := http.Header{}
		for k, v := range c.headers {
			h.Set(k, v)
		}
		msg := rpcMessage{ID: []byte("1"), Method: c.method}
		if c.params != "" {
			msg.Params = []byte(c.params)
		}
		e := eraOf(h, []rpcMessage{msg})
		if e.modern != c.modern {
			t.Errorf("%s: modern = %v (%s), want %v", c.name, e.modern, e.why, c.modern)
		}
	}
}

// Every POST mcp-remote 0.15.1 sends is of the session era.
func TestEraOfMCPRemote(t *testing.T) {
	for _, c := range readCapture(t, "mcp-remote-0.15.1") {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(c.raw)))
		if err != nil {
			t.Fatal(err)
		}
		if req.Method != http.MethodPost {
			continue
		}
		body, _ := io.ReadAll(req.Body)
		var m rpcMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e := eraOf(req.Header, []rpcMessage{m}); e.modern {
			t.Errorf("%s (%s, Mcp-Method %q): taken as 2026-07-28 (%s)", c.name, m.Method, req.Header.Get("Mcp-Method"), e.why)
		}
	}
}

// A subscription without a session is refused with the true reason: the
// --stateless server, or the request's own protocol; never --stateless
// from a server without it (which mcp-remote was told before its era was
// read from its protocol version).
func TestSessionlessSubscriptionMessages(t *testing.T) {
	subscribe := `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"hubsnap://release",` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/subscribe"}
	for _, stateless := range []bool{false, true} {
		env := startHTTP(t, HTTPOptions{Stateless: stateless})
		resp, body := rawHTTP{url: env.url, headers: modern, body: subscribe}.do(t)
		t.Logf("stateless %v, a 2026-07-28 resources/subscribe: %s %s", stateless, resp.Status, body)
		if strings.Contains(body, "--stateless") || !strings.Contains(body, `"error"`) {
			t.Errorf("stateless %v, a 2026-07-28 resources/subscribe: %s %s; want an error that does not name --stateless",
				stateless, resp.Status, body)
		}
		// A 2025-11-25 client (go-sdk's): a session on the default
		// endpoint, its subscription taken; with --stateless, refused,
		// naming it.
		old := env.mustConnect(t, "")
		err := old.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "hubsnap://release"})
		switch {
		case !stateless && err != nil:
			t.Errorf("default server, a 2025-11-25 resources/subscribe: %v", err)
		case stateless && (err == nil || !strings.Contains(err.Error(), "--stateless")):
			t.Errorf("--stateless, a 2025-11-25 resources/subscribe: %v; want a reason naming --stateless", err)
		}
	}

	// The reason serveMCP notes reaches the answer; go-sdk answers a
	// 2026-07-28 subscription itself today, so the middleware is called
	// here as go-sdk would call it.
	h := &httpHandler{log: &requestLog{}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.ListToolsResult{}, nil }
	for _, c := range []struct {
		stateless bool
		era       era
		want, not string
	}{
		{true, era{}, "--stateless", ""},
		{false, eraOf(http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, nil), "Mcp-Protocol-Version header (2026-07-28)", "--stateless"},
	} {
		rec, _ := h.log.begin(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, mcpPath, nil))
		rec.setSessionless(sessionlessReason(c.stateless, c.era))
		req := &mcp.SubscribeRequest{Session: &mcp.ServerSession{}, Params: &mcp.SubscribeParams{URI: "hubsnap://release"},
			Extra: &mcp.RequestExtra{Header: http.Header{requestRefHeader: {rec.ref}}}}
		_, err := h.sessionlessSubscriptions(next)(t.Context(), "resources/subscribe", req)
		h.log.requests.Delete(rec.ref)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.not != "" && strings.Contains(err.Error(), c.not)) {
			t.Errorf("stateless %v: %v; want an error naming %q, not %q", c.stateless, err, c.want, c.not)
		}
	}
}
