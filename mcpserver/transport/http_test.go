package transport

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// The Streamable HTTP mode (docs/team.md), through real HTTP on loopback and
// go-sdk's own client: tokens, the open mode before any token exists,
// DNS-rebinding protection, sessions tied to their token, limits, the
// request log and shutdown. Scopes are in http_scopes_test.go.

// initializeBody is a plain MCP initialize request, as a raw client sends it.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"raw-test","version":"0"}}}`

// initializedBody is the notification that ends the handshake.
const initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// toolsListBody lists the tools within a session.
const toolsListBody = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// wrongSecret looks like a hubsnap token but is none.
const wrongSecret = "hubsnap_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// bearer is an http.RoundTripper that sends a bearer token (none when
// empty) and counts the GET streams the server accepted.
type bearer struct {
	token string
	next  *http.Transport
	gets  atomic.Int32 // GET requests answered 200: standalone SSE streams opened
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	resp, err := b.next.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		b.gets.Add(1)
	}
	return resp, err
}

// bearerClient returns an HTTP client that sends token, with its own
// connections (closed when the test ends).
func bearerClient(tb testing.TB, token string) (*http.Client, *bearer) {
	tb.Helper()
	b := &bearer{token: token, next: http.DefaultTransport.(*http.Transport).Clone()}
	tb.Cleanup(b.next.CloseIdleConnections)
	return &http.Client{Transport: b}, b
}

// tokenSpec is a token to create before the server starts.
type tokenSpec struct {
	name   string
	scopes []string
}

// httpEnv is the shop fixture served over HTTP on a loopback address.
type httpEnv struct {
	srv     *mcpserver.Server
	st      *store.Store // the index srv reads
	ts      *httptest.Server
	base    string // http://127.0.0.1:port
	url     string // the MCP endpoint: base + /mcp
	file    *access.File
	keeper  *access.Keeper
	secrets map[string]string // token name -> secret
	logs    *lockedBuffer     // the request log
}

// startHTTP serves the shop fixture with HTTPHandler(opts) on an httptest
// server (127.0.0.1). The tokens are created in a fresh config folder
// before the keeper reads it; with none, no token file exists. opts.Tokens
// and opts.Log are set here.
func startHTTP(tb testing.TB, opts HTTPOptions, tokens ...tokenSpec) *httpEnv {
	tb.Helper()
	st := openStore(tb)
	putCurrent(tb, st, shopSnapshot(tb))
	srv := newServer(tb, st)
	dir := tb.TempDir()
	env := &httpEnv{srv: srv, st: st, file: access.NewFile(dir), secrets: map[string]string{}, logs: &lockedBuffer{}}
	for _, tok := range tokens {
		secret, _, err := env.file.Create(tok.name, tok.scopes, time.Now())
		if err != nil {
			tb.Fatalf("create token %s: %v", tok.name, err)
		}
		env.secrets[tok.name] = secret
	}
	keeper, err := access.NewKeeper(access.NewFile(dir))
	if err != nil {
		tb.Fatalf("NewKeeper: %v", err)
	}
	env.keeper = keeper
	opts.Tokens = keeper
	opts.Log = slog.New(slog.NewTextHandler(env.logs, nil))
	env.ts = httptest.NewServer(HTTPHandler(srv, opts))
	// Registered first, so it runs last: after every client is closed.
	// Sessions still open hold their GET streams; close them first, and the
	// connections, so that Close cannot wait on them.
	tb.Cleanup(func() {
		closeSessions(srv)
		env.ts.CloseClientConnections()
		env.ts.Close()
	})
	env.base = env.ts.URL
	env.url = env.ts.URL + mcpPath
	return env
}

// sessionEra is the newest protocol version with sessions. The tests of
// this file and http_scopes_test.go exercise sessions, so their client
// asks for it; go-sdk's client would otherwise negotiate 2026-07-28, which
// hubsnap serves without sessions (http_stateless_test.go).
const sessionEra = "2025-11-25"

// connectHTTP connects go-sdk's client to url with token (none when
// empty), with a session (protocol sessionEra). The session is closed when
// the test ends.
func connectHTTP(tb testing.TB, url, token string) (*mcp.ClientSession, *bearer, error) {
	tb.Helper()
	return connectHTTPVersion(tb, url, token, sessionEra)
}

// connectHTTPVersion is connectHTTP asking for protocol version (go-sdk's
// newest when empty).
func connectHTTPVersion(tb testing.TB, url, token, version string) (*mcp.ClientSession, *bearer, error) {
	tb.Helper()
	hc, b := bearerClient(tb, token)
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-http-test", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, b, err
	}
	tb.Cleanup(func() { cs.Close() })
	return cs, b, nil
}

// mustConnect is connectHTTP that fails the test on an error.
func (e *httpEnv) mustConnect(tb testing.TB, token string) *mcp.ClientSession {
	tb.Helper()
	cs, _, err := connectHTTP(tb, e.url, token)
	if err != nil {
		tb.Fatalf("connect with token %q: %v", tokenLabel(token), err)
	}
	return cs
}

// tokenLabel shows a token in failure messages without its secret part.
func tokenLabel(token string) string {
	if token == "" {
		return "(none)"
	}
	if len(token) > 12 {
		return token[:12] + "..."
	}
	return token
}

// rawHTTP is one plain HTTP request to an hubsnap server.
type rawHTTP struct {
	method  string // POST when empty
	url     string
	token   string // Authorization: Bearer, when set
	session string // Mcp-Session-Id, when set
	host    string // the Host header, when set
	origin  string // Origin, when set
	headers map[string]string
	body    string
}

// do sends the request and returns the response (its body read and
// closed) and the body.
func (r rawHTTP) do(tb testing.TB) (*http.Response, string) {
	tb.Helper()
	method := r.method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(method, r.url, body)
	if err != nil {
		tb.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
	}
	if r.host != "" {
		req.Host = r.host
	}
	if r.origin != "" {
		req.Header.Set("Origin", r.origin)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: hangGuard}).Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, r.url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: read the body: %v", method, r.url, err)
	}
	return resp, string(b)
}

// initialize opens a session with a raw initialize and initialized, and
// returns its id.
func (e *httpEnv) initialize(tb testing.TB, token string) string {
	tb.Helper()
	resp, body := rawHTTP{url: e.url, token: token, body: initializeBody}.do(tb)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("initialize with token %s: %s: %s", tokenLabel(token), resp.Status, body)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		tb.Fatalf("initialize answered no Mcp-Session-Id: %s", body)
	}
	resp, body = rawHTTP{url: e.url, token: token, session: sid, body: initializedBody}.do(tb)
	if resp.StatusCode != http.StatusAccepted {
		tb.Fatalf("notifications/initialized: %s: %s", resp.Status, body)
	}
	return sid
}

// eventually polls cond every 20ms until it holds or within fails the
// test. It returns how long it took.
func eventually(tb testing.TB, within time.Duration, what string, cond func() bool) time.Duration {
	tb.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			tb.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// hangGuard bounds a call that should answer in milliseconds, only so that
// a hung call fails the test instead of hanging it; it is generous because
// a loaded machine running -race can be very slow.
const hangGuard = 30 * time.Second

// callCtx calls a tool with a bounded context and returns the protocol
// error, if any.
func callCtx(cs *mcp.ClientSession, tool string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

// While no token was ever issued, requests that arrive on loopback are
// served without Authorization: the handshake, lists and every tool.
func TestHTTPNoTokenFileIsOpenOnLoopback(t *testing.T) {
	env := startHTTP(t, HTTPOptions{})
	if issued, err := env.keeper.Issued(); issued || err != nil {
		t.Fatalf("Issued() = %v, %v; want false (no token file)", issued, err)
	}
	cs := env.mustConnect(t, "")
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, toolNames) {
		t.Errorf("tools/list = %v, want %v", names, toolNames)
	}
	// Without a token nothing is limited by scopes.
	for _, c := range everyToolCall {
		args := c.args
		if c.tool == "schema_get_table" {
			args = map[string]any{"table": "main.users"}
		}
		if res := call(t, cs, c.tool, args); res.IsError {
			t.Errorf("%s: %s", c.tool, text(t, res))
		}
	}
	if got := success[mcpserver.ReleaseInfo](t, call(t, cs, "release_info", map[string]any{})); got.ID != "rel_42" {
		t.Errorf("release_info id = %q, want rel_42", got.ID)
	}
	if _, err := readResource(t, cs, "hubsnap://tables/main/users"); err != nil {
		t.Errorf("read hubsnap://tables/main/users: %v", err)
	}

	// A raw initialize without Authorization, too.
	resp, body := rawHTTP{url: env.url, body: initializeBody}.do(t)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("raw initialize: %s (session %q): %s", resp.Status, resp.Header.Get("Mcp-Session-Id"), body)
	}
	if !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("raw initialize answered no serverInfo: %s", body)
	}
}

// With no Keeper at all, a loopback request is served, as with no token
// issued.
func TestHTTPNilKeeperIsOpenOnLoopback(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	ts := httptest.NewServer(HTTPHandler(srv, HTTPOptions{}))
	t.Cleanup(func() { closeSessions(srv); ts.CloseClientConnections(); ts.Close() })
	cs, _, err := connectHTTP(t, ts.URL+mcpPath, "")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if res := call(t, cs, "logic_list", map[string]any{}); res.IsError {
		t.Errorf("logic_list: %s", text(t, res))
	}
}

// Once a token exists, every request needs one: none or a wrong one is
// 401 with a plain Bearer challenge that says where a token comes from and
// advertises no OAuth (no resource_metadata: issue 17, item 2); a valid
// one is served.
func TestHTTPTokenRequired(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"alice", []string{"*"}})
	alice := env.secrets["alice"]

	for _, tc := range []struct {
		name, token, authorization string
	}{
		{"no Authorization", "", ""},
		{"wrong token", wrongSecret, ""},
		{"a token of another server", "hubsnap_" + strings.Repeat("x", 43), ""},
		{"over-long token", "hubsnap_" + strings.Repeat("y", 5000), ""},
		{"Basic auth", "", "Basic YWxpY2U6c2VjcmV0"},
		{"Bearer without a token", "", "Bearer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, env.url, strings.NewReader(initializeBody))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			switch {
			case tc.token != "":
				req.Header.Set("Authorization", "Bearer "+tc.token)
			case tc.authorization != "":
				req.Header.Set("Authorization", tc.authorization)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %s, want 401: %s", resp.Status, body)
			}
			www := resp.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(www, "Bearer ") || !strings.Contains(www, `error="invalid_token"`) ||
				!strings.Contains(www, "hubsnap token create") {
				t.Errorf("WWW-Authenticate = %q, want Bearer error=\"invalid_token\" naming hubsnap token create", www)
			}
			if strings.Contains(www, "resource_metadata") {
				t.Errorf("WWW-Authenticate = %q advertises OAuth metadata, which issued tokens do not use", www)
			}
			if !strings.Contains(string(body), "hubsnap token create") {
				t.Errorf("401 body %q does not say where a token comes from", body)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a refused request got a session: %q", resp.Header.Get("Mcp-Session-Id"))
			}
		})
	}

	t.Run("valid token", func(t *testing.T) {
		resp, body := rawHTTP{url: env.url, token: alice, body: initializeBody}.do(t)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %s, want 200: %s", resp.Status, body)
		}
		if !strings.Contains(body, `"serverInfo"`) {
			t.Errorf("no serverInfo in %s", body)
		}
	})

	t.Run("go-sdk client", func(t *testing.T) {
		if _, _, err := connectHTTP(t, env.url, ""); err == nil {
			t.Error("Connect without a token succeeded")
		} else {
			t.Logf("Connect without a token: %v", err)
		}
		if _, _, err := connectHTTP(t, env.url, wrongSecret); err == nil {
			t.Error("Connect with a wrong token succeeded")
		}
		cs := env.mustConnect(t, alice)
		if res := call(t, cs, "release_info", map[string]any{}); res.IsError {
			t.Errorf("release_info: %s", text(t, res))
		}
	})

	// GET and DELETE are guarded too.
	t.Run("GET and DELETE", func(t *testing.T) {
		sid := env.initialize(t, alice)
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			resp, body := rawHTTP{method: method, url: env.url, session: sid}.do(t)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s without a token: %s, want 401: %s", method, resp.Status, body)
			}
		}
	})
}

// A server that started open closes once the first token is created (the
// keeper sees the new file within access.RecheckEvery), and the new token
// works.
func TestHTTPFirstTokenClosesTheOpenServer(t *testing.T) {
	env := startHTTP(t, HTTPOptions{})
	if resp, body := (rawHTTP{url: env.url, body: initializeBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Fatalf("open server: %s: %s", resp.Status, body)
	}
	secret, _, err := env.file.Create("first", []string{"table:read"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	took := eventually(t, patience, "a request without a token refused after the first token", func() bool {
		resp, _ := rawHTTP{url: env.url, body: initializeBody}.do(t)
		return resp.StatusCode == http.StatusUnauthorized
	})
	t.Logf("closed %v after the first token", took)
	if resp, body := (rawHTTP{url: env.url, token: secret, body: initializeBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Errorf("the new token: %s: %s", resp.Status, body)
	}
}

// A token revoked while the server runs stops working within about
// access.RecheckEvery, also in a session it opened; other tokens keep
// working.
func TestHTTPRevokedWhileServing(t *testing.T) {
	env := startHTTP(t, HTTPOptions{},
		tokenSpec{"doomed", []string{"*"}}, tokenSpec{"survivor", []string{"*"}})
	doomed, survivor := env.secrets["doomed"], env.secrets["survivor"]
	cs := env.mustConnect(t, doomed)
	other := env.mustConnect(t, survivor)
	if res := call(t, cs, "release_info", map[string]any{}); res.IsError {
		t.Fatalf("release_info before revoke: %s", text(t, res))
	}

	// Revoke through another File on the same path, as `hubsnap token
	// revoke` in another process would.
	if _, err := access.NewFile(filepath.Dir(env.file.Path)).Revoke("doomed"); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	revoked := time.Now()
	var lastErr error
	for {
		_, err := callCtx(cs, "release_info", map[string]any{})
		if err != nil {
			lastErr = err
			break
		}
		if time.Since(revoked) > 2500*time.Millisecond {
			t.Fatalf("calls with the revoked token still succeed %v after revoke", time.Since(revoked))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the revoked token's session refused %v after revoke: %v", time.Since(revoked).Round(time.Millisecond), lastErr)
	if _, err := callCtx(cs, "schema_list_tables", map[string]any{}); err == nil {
		t.Error("a later call of the revoked token's session succeeded")
	}

	resp, body := rawHTTP{url: env.url, token: doomed, body: initializeBody}.do(t)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("raw initialize with the revoked token: %s, want 401: %s", resp.Status, body)
	}
	if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
	}

	// The other token is untouched, in its open session and in a new one.
	if res := call(t, other, "release_info", map[string]any{}); res.IsError {
		t.Errorf("the other token's session: %s", text(t, res))
	}
	if resp, body := (rawHTTP{url: env.url, token: survivor, body: initializeBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Errorf("the other token, new session: %s: %s", resp.Status, body)
	}
}

// Revoking the last token does not open the server again: the token file
// still exists, so every request still needs a token.
func TestHTTPRevokingTheLastTokenKeepsItClosed(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"only", []string{"*"}})
	only := env.secrets["only"]
	if resp, body := (rawHTTP{url: env.url, body: initializeBody}).do(t); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a token before revoke: %s, want 401: %s", resp.Status, body)
	}
	if _, err := access.NewFile(filepath.Dir(env.file.Path)).Revoke("only"); err != nil {
		t.Fatal(err)
	}
	// Once the server has seen the revoke (the token is refused), a request
	// without a token is still refused.
	eventually(t, patience, "the revoked token refused", func() bool {
		resp, _ := rawHTTP{url: env.url, token: only, body: initializeBody}.do(t)
		return resp.StatusCode == http.StatusUnauthorized
	})
	if n, err := env.keeper.Count(); n != 0 || err != nil {
		t.Errorf("Count() = %d, %v; want 0", n, err)
	}
	if issued, err := env.keeper.Issued(); !issued || err != nil {
		t.Errorf("Issued() = %v, %v; want true", issued, err)
	}
	resp, body := rawHTTP{url: env.url, body: initializeBody}.do(t)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a token after the last revoke: %s, want 401: %s", resp.Status, body)
	}
	if _, _, err := connectHTTP(t, env.url, ""); err == nil {
		t.Error("go-sdk Connect without a token succeeded after the last revoke")
	}
}

// DNS-rebinding protection: a request that reaches the loopback address
// with another Host is 403; a localhost Host is served. Cross-origin
// requests from a browser are refused as well.
func TestHTTPDNSRebinding(t *testing.T) {
	t.Run("open", func(t *testing.T) {
		env := startHTTP(t, HTTPOptions{})
		_, port, err := net.SplitHostPort(strings.TrimPrefix(env.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			host, origin string
			want         int
		}{
			{"evil.example.com", "", http.StatusForbidden},
			{"evil.example.com:" + port, "", http.StatusForbidden},
			{"localhost:" + port, "", http.StatusOK},
			{"127.0.0.1:" + port, "", http.StatusOK},
			{"localhost:" + port, "http://evil.example.com", http.StatusForbidden},
		} {
			resp, body := rawHTTP{url: env.url, host: tc.host, origin: tc.origin, body: initializeBody}.do(t)
			if resp.StatusCode != tc.want {
				t.Errorf("Host %q Origin %q: %s, want %d: %s", tc.host, tc.origin, resp.Status, tc.want, body)
			}
		}
	})
	t.Run("with a valid token", func(t *testing.T) {
		env := startHTTP(t, HTTPOptions{}, tokenSpec{"alice", []string{"*"}})
		resp, body := rawHTTP{url: env.url, token: env.secrets["alice"], host: "evil.example.com", body: initializeBody}.do(t)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host evil.example.com with a valid token: %s, want 403: %s", resp.Status, body)
		}
	})
}

// A session belongs to the token that opened it: another valid token
// cannot use its Mcp-Session-Id.
func TestHTTPSessionBelongsToItsToken(t *testing.T) {
	env := startHTTP(t, HTTPOptions{},
		tokenSpec{"alice", []string{"*"}}, tokenSpec{"mallory", []string{"*"}})
	alice, mallory := env.secrets["alice"], env.secrets["mallory"]
	sid := env.initialize(t, alice)

	for _, r := range []rawHTTP{
		{url: env.url, token: mallory, session: sid, body: toolsListBody},
		{method: http.MethodGet, url: env.url, token: mallory, session: sid},
		{method: http.MethodDelete, url: env.url, token: mallory, session: sid},
	} {
		resp, body := r.do(t)
		method := cmp.Or(r.method, http.MethodPost)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with another token: %s, want 403: %s", method, resp.Status, body)
		}
		if !strings.Contains(body, "session user mismatch") {
			t.Errorf("%s with another token: body %q, want go-sdk's session user mismatch", method, body)
		}
	}
	// The session is intact for its own token.
	resp, body := rawHTTP{url: env.url, token: alice, session: sid, body: toolsListBody}.do(t)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "schema_search") {
		t.Errorf("tools/list in alice's session: %s: %.200s", resp.Status, body)
	}
	// Without a token at all, 401 before the session is looked at.
	resp, body = rawHTTP{url: env.url, session: sid, body: toolsListBody}.do(t)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("tools/list without a token: %s, want 401: %s", resp.Status, body)
	}
}

// A body over MaxBodyBytes is 413; a new session beyond MaxSessions is 503,
// while requests within open sessions are still served.
func TestHTTPLimits(t *testing.T) {
	t.Run("body", func(t *testing.T) {
		env := startHTTP(t, HTTPOptions{MaxBodyBytes: 1024})
		big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
			`"capabilities":{},"clientInfo":{"name":"` + strings.Repeat("x", 2048) + `","version":"0"}}}`
		if !json.Valid([]byte(big)) || len(big) < 2048 {
			t.Fatalf("the big body is not 2 KiB of valid JSON")
		}
		resp, body := rawHTTP{url: env.url, body: big}.do(t)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a %d-byte body with MaxBodyBytes 1024: %s, want 413: %s", len(big), resp.Status, body)
		}
		// Within a session too.
		sid := env.initialize(t, "")
		bigCall := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"schema_search","arguments":{"query":"` +
			strings.Repeat("q", 2048) + `"}}}`
		resp, body = rawHTTP{url: env.url, session: sid, body: bigCall}.do(t)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a %d-byte tools/call with MaxBodyBytes 1024: %s, want 413: %s", len(bigCall), resp.Status, body)
		}
		// A body within the limit is served.
		if len(initializeBody) > 1024 {
			t.Fatal("initializeBody is over 1 KiB")
		}
		if resp, body := (rawHTTP{url: env.url, body: initializeBody}).do(t); resp.StatusCode != http.StatusOK {
			t.Errorf("a small initialize: %s: %s", resp.Status, body)
		}
	})

	// At MaxSessions, a new session evicts the least recently used one,
	// whose client gets 404 (http_sessions_test.go has the rest).
	t.Run("sessions", func(t *testing.T) {
		env := startHTTP(t, HTTPOptions{MaxSessions: 2})
		first := env.initialize(t, "")
		second := env.initialize(t, "")
		resp, body := rawHTTP{url: env.url, body: initializeBody}.do(t)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a third session with MaxSessions 2: %s, want 200: %s", resp.Status, body)
		}
		if resp, body := (rawHTTP{url: env.url, session: first, body: toolsListBody}).do(t); resp.StatusCode != http.StatusNotFound {
			t.Errorf("tools/list in the evicted session: %s, want 404: %.200s", resp.Status, body)
		}
		if resp, body := (rawHTTP{url: env.url, session: second, body: toolsListBody}).do(t); resp.StatusCode != http.StatusOK {
			t.Errorf("tools/list in the newer session: %s: %.200s", resp.Status, body)
		}
		if n := sessionCount(env.srv); n != 2 {
			t.Errorf("%d sessions open, want 2", n)
		}
	})
}

// Each request logs one line: the JSON-RPC method, the tool, the HTTP
// status, the result and the token's name, never its secret.
func TestHTTPRequestLog(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"alice", []string{"table:read"}})
	alice := env.secrets["alice"]
	cs := env.mustConnect(t, alice)
	if res := call(t, cs, "schema_list_tables", map[string]any{}); res.IsError {
		t.Fatalf("schema_list_tables: %s", text(t, res))
	}
	wantCode(t, call(t, cs, "release_info", map[string]any{}), "FORBIDDEN")
	wantCode(t, call(t, cs, "schema_get_table", map[string]any{"table": "invoices"}), "NOT_FOUND")
	if resp, _ := (rawHTTP{url: env.url, body: initializeBody}).do(t); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a token: %s", resp.Status)
	}
	if resp, _ := (rawHTTP{url: env.url, token: wrongSecret, body: initializeBody}).do(t); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token: %s", resp.Status)
	}
	if resp, _ := (rawHTTP{method: http.MethodGet, url: env.base + "/nowhere"}).do(t); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /nowhere: %s", resp.Status)
	}

	// A line is written once its request is done, which may be a moment
	// after the client has its answer: wait for each.
	hasLine := func(parts ...string) bool {
		for line := range strings.Lines(env.logs.String()) {
			if containsAll(line, parts...) {
				return true
			}
		}
		return false
	}
	for _, want := range [][]string{
		{"msg=request", "method=POST", "rpc=tools/call", "tool=schema_list_tables", "status=200", "result=ok", "token=alice", "session="},
		{"msg=request", "method=POST", "rpc=tools/call", "tool=release_info", "status=200", "result=FORBIDDEN", "token=alice"},
		{"msg=request", "method=POST", "rpc=tools/call", "tool=schema_get_table", "status=200", "result=NOT_FOUND", "token=alice"},
		{"msg=request", "method=POST", "rpc=initialize", "status=200", "result=ok", "token=alice"},
		{"msg=request", "method=POST", "status=401"},
		{"msg=request", "method=GET", "path=/nowhere", "status=404"},
	} {
		deadline := time.Now().Add(patience)
		for !hasLine(want...) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !hasLine(want...) {
			t.Errorf("no log line with %v; the log:\n%s", want, env.logs.String())
		}
	}
	// A 401 line names no token (it has none to name) and no rpc.
	for line := range strings.Lines(env.logs.String()) {
		if strings.Contains(line, "status=401") && (strings.Contains(line, "token=") || strings.Contains(line, "rpc=")) {
			t.Errorf("a 401 line names a token or an rpc: %s", line)
		}
	}
	logs := env.logs.String()
	for _, secret := range []string{alice, wrongSecret, strings.TrimPrefix(alice, "hubsnap_")} {
		if strings.Contains(logs, secret) {
			t.Errorf("the request log holds a secret %s...", secret[:10])
		}
	}
	if strings.Contains(logs, requestRefHeader) {
		t.Errorf("the request log names the internal header: %s", logs)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// ServeStreamable, asked to stop while a client holds a session (and its
// GET stream) open, closes the session and returns nil promptly; the
// client's next call fails.
func TestHTTPServeStreamableShutdownWithOpenSession(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	dir := t.TempDir()
	secret, _, err := access.NewFile(dir).Create("alice", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	keeper, err := access.NewKeeper(access.NewFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- ServeStreamable(ctx, srv, ln, HTTPOptions{Tokens: keeper}) }()

	cs, b, err := connectHTTP(t, "http://"+ln.Addr().String()+mcpPath, secret)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if res := call(t, cs, "release_info", map[string]any{}); res.IsError {
		t.Fatalf("release_info: %s", text(t, res))
	}
	// The client's standalone GET stream is open: the case that would hold
	// http.Server.Shutdown.
	eventually(t, patience, "the client's GET stream open", func() bool { return b.gets.Load() > 0 })
	eventually(t, patience, "one session open", func() bool { return sessionCount(srv) == 1 })

	cancel()
	start := time.Now()
	select {
	case err := <-served:
		took := time.Since(start)
		t.Logf("ServeStreamable returned %v after the context ended", took.Round(time.Millisecond))
		if err != nil {
			t.Errorf("ServeStreamable = %v, want nil", err)
		}
		// Had the GET stream held http.Server.Shutdown, it would have
		// returned only once shutdownGrace ran out.
		if took >= shutdownGrace {
			t.Errorf("ServeStreamable took %v to return: the open session held it for the whole grace period", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("ServeStreamable did not return within 10s of the context ending")
	}
	// Sessions are closed by http.Server's shutdown hook, in a goroutine of
	// its own that ServeStreamable does not wait for: one may still be
	// closing for a moment after it returned.
	if n := sessionCount(srv); n != 0 {
		t.Logf("%d session(s) still listed when ServeStreamable returned", n)
	}
	eventually(t, patience, "every session closed after shutdown", func() bool { return sessionCount(srv) == 0 })
	if _, err := callCtx(cs, "release_info", map[string]any{}); err == nil {
		t.Error("a call after shutdown succeeded")
	} else {
		t.Logf("a call after shutdown: %v", err)
	}
	// Nothing listens any more.
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("the listener still accepts connections after shutdown")
	}
}

// ServeStreamable returns the listener's error when serving fails.
func TestHTTPServeStreamableClosedListener(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	served := make(chan error, 1)
	go func() { served <- ServeStreamable(context.Background(), srv, ln, HTTPOptions{}) }()
	select {
	case err := <-served:
		if err == nil || errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeStreamable on a closed listener = %v, want its error", err)
		}
	case <-time.After(patience):
		t.Fatal("ServeStreamable on a closed listener did not return")
	}
}

// Without OAuth, no RFC 9728 metadata is served (it would name no
// authorization server, and send clients into an OAuth flow that cannot
// work: issue 17, item 2); any other path is 404 too.
func TestHTTPMetadataAndUnknownPaths(t *testing.T) {
	for name, env := range map[string]*httpEnv{
		"issued tokens": startHTTP(t, HTTPOptions{}, tokenSpec{"alice", []string{"*"}}),
		"open":          startHTTP(t, HTTPOptions{}),
	} {
		for _, path := range []string{"/", "/nope", "/mcp/extra", "/.well-known/oauth-protected-resource",
			"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server",
			"/.well-known/openid-configuration", "/register", "/authorize", "/token"} {
			resp, body := rawHTTP{method: http.MethodGet, url: env.base + path}.do(t)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s: GET %s: %s, want 404: %s", name, path, resp.Status, body)
			}
			// A client that tries OAuth anyway shows its user this body.
			if isOAuthPath(path) != strings.Contains(body, "hubsnap token create") {
				t.Errorf("%s: GET %s: body %q; want it to name hubsnap token create for an OAuth path only", name, path, body)
			}
		}
	}
}
