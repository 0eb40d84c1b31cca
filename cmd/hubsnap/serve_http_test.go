package main

// End-to-end tests of `hubsnap serve --http` (docs/team.md): the real binary as
// a child process (see TestMain), tokens made with hubsnap token, and the
// go-sdk Streamable HTTP client or raw HTTP requests.

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
)

// Time limits of the HTTP tests.
const (
	// httpStopLimit bounds the exit after SIGTERM with a session open. (A
	// -race binary sleeps a second at exit, GORACE atexit_sleep_ms, so the
	// times logged under -race are about 1 s longer.)
	httpStopLimit = 10 * time.Second
	// revokeLimit is how soon a revoked token must be refused by a running
	// server: the issue says within 2 s; half a second more for a busy
	// machine. The test polls up to revokePollLimit, logs the time seen and
	// fails past revokeLimit.
	revokeLimit     = 2500 * time.Millisecond
	revokePollLimit = 15 * time.Second
)

// urlRE finds the served URL in the first log line of serve --http.
var urlRE = regexp.MustCompile(`url="?(http://[^"\s]+/mcp)"?`)

// httpServe is a running hubsnap serve --http.
type httpServe struct {
	*child
	url string // http://HOST:PORT/mcp, from its log
}

// startHTTPServe starts hubsnap serve --http addr (and extra) and waits
// for its log line naming the URL.
func startHTTPServe(tb testing.TB, c *cli, addr string, extra ...string) *httpServe {
	tb.Helper()
	p := startChild(tb, c, append([]string{"serve", "--http", addr}, extra...)...)
	deadline := time.After(startLimit)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := urlRE.FindStringSubmatch(p.stderr.String()); m != nil {
			return &httpServe{child: p, url: m[1]}
		}
		select {
		case <-tick.C:
		case <-p.done:
			if m := urlRE.FindStringSubmatch(p.stderr.String()); m != nil {
				tb.Fatalf("hubsnap serve --http %s exited right after starting: %v; stderr: %s", addr, p.waitErr, p.stderr)
			}
			tb.Fatalf("hubsnap serve --http %s exited without serving: %v; stderr: %s", addr, p.waitErr, p.stderr)
		case <-deadline:
			tb.Fatalf("hubsnap serve --http %s: no url= in its log after %v; stderr: %s", addr, startLimit, p.stderr)
		}
	}
}

// stop sends SIGTERM and returns the exit code and how long the exit took.
func (s *httpServe) stop(tb testing.TB) (int, time.Duration) {
	tb.Helper()
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	code := s.wait(tb, httpStopLimit)
	return code, time.Since(start)
}

// bearerTransport adds a bearer token to every request, and counts the
// responses it got by HTTP method.
type bearerTransport struct {
	token string
	base  *http.Transport

	mu        sync.Mutex
	responses map[string]int
	getOK     chan struct{} // closed at the first 200 to a GET
	getOnce   sync.Once
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.base.RoundTrip(r)
	if err == nil {
		b.mu.Lock()
		b.responses[r.Method]++
		b.mu.Unlock()
		if r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
			b.getOnce.Do(func() { close(b.getOK) })
		}
	}
	return resp, err
}

func (b *bearerTransport) count(method string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.responses[method]
}

// clientWithBearer returns an HTTP client that sends token on every
// request, and its transport.
func clientWithBearer(tb testing.TB, token string) (*http.Client, *bearerTransport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	tb.Cleanup(base.CloseIdleConnections)
	bt := &bearerTransport{token: token, base: base, responses: map[string]int{}, getOK: make(chan struct{})}
	return &http.Client{Transport: bt}, bt
}

// rawReply is what one raw HTTP request got.
type rawReply struct {
	status  int
	header  http.Header
	body    string
	session string
}

// rawPost posts body to url with token ("" for none) and Host host ("" for
// the URL's), with the headers Streamable HTTP asks for.
func rawPost(tb testing.TB, url, token, host, body string) rawReply {
	tb.Helper()
	return rawRequest(tb, http.MethodPost, url, token, host, body, "")
}

func rawRequest(tb testing.TB, method, url, token, host, body, session string) rawReply {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	if host != "" {
		req.Host = host
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: read the body: %v", method, url, err)
	}
	return rawReply{status: resp.StatusCode, header: resp.Header, body: string(b), session: resp.Header.Get("Mcp-Session-Id")}
}

// checkUnauthorized fails unless reply is a 401 that asks for a bearer
// token from hubsnap token create, with a plain challenge: issued tokens
// advertise no OAuth (no resource_metadata).
func checkUnauthorized(tb testing.TB, what string, reply rawReply) {
	tb.Helper()
	if reply.status != http.StatusUnauthorized {
		tb.Errorf("%s: status %d, want 401; body %q", what, reply.status, reply.body)
		return
	}
	wa := reply.header.Get("WWW-Authenticate")
	if !strings.HasPrefix(wa, "Bearer ") || !strings.Contains(wa, `error="invalid_token"`) ||
		!strings.Contains(wa, "hubsnap token create") || strings.Contains(wa, "resource_metadata") {
		tb.Errorf("%s: WWW-Authenticate = %q, want a plain Bearer challenge naming hubsnap token create", what, wa)
	}
}

// checkInitialized fails unless reply is a 200 answering initialize with a
// session.
func checkInitialized(tb testing.TB, what string, reply rawReply) {
	tb.Helper()
	if reply.status != http.StatusOK || !strings.Contains(reply.body, `"protocolVersion"`) || reply.session == "" {
		tb.Errorf("%s: status %d, session %q, body %q; want 200 with an initialize result and a session",
			what, reply.status, reply.session, reply.body)
	}
}

// logLine is one log line of serve --http, as key=value fields.
type logLine map[string]string

var logFieldRE = regexp.MustCompile(`([A-Za-z_]+)=("(?:[^"\\]|\\.)*"|\S*)`)

// requestLog returns the msg=request lines of stderr.
func requestLog(stderr string) []logLine {
	var out []logLine
	for l := range strings.SplitSeq(stderr, "\n") {
		fields := logLine{}
		for _, m := range logFieldRE.FindAllStringSubmatch(l, -1) {
			fields[m[1]] = strings.Trim(m[2], `"`)
		}
		if fields["msg"] == "request" {
			out = append(out, fields)
		}
	}
	return out
}

// TestServeHTTPRefusesOpenNonLoopback: serving a non-loopback address
// without tokens is refused before anything listens; with a token it
// starts.
func TestServeHTTPRefusesOpenNonLoopback(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)

	// Hold the port the refused server is asked to serve: had it tried to
	// listen before checking the tokens, it would fail with "address already
	// in use" instead of the refusal.
	held, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, heldPort, err := net.SplitHostPort(held.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	heldAddr := "0.0.0.0:" + heldPort
	for _, addr := range []string{"0.0.0.0:0", heldAddr, "[::]:" + heldPort, ":0"} {
		p := startChild(t, c, "serve", "--http", addr)
		code := p.wait(t, startLimit)
		stdout, stderr := p.stdout.String(), p.stderr.String()
		if code != exitError {
			t.Errorf("serve --http %s without tokens: exit %d, want 1; stderr: %s", addr, code, stderr)
		}
		if stdout != "" {
			t.Errorf("serve --http %s without tokens: stdout = %q, want nothing", addr, stdout)
		}
		if !strings.HasPrefix(stderr, "hubsnap: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("serve --http %s without tokens: stderr = %q, want one line starting \"hubsnap: \" (and no serving log)", addr, stderr)
		}
		mentions(t, "serve --http "+addr+" without tokens: stderr", stderr, "refusing", "token create")
		if strings.Contains(stderr, "already in use") || strings.Contains(stderr, "url=") {
			t.Errorf("serve --http %s without tokens listened: %s", addr, stderr)
		}
	}
	if exists(tokenFilePath(c)) {
		t.Errorf("the refused serve wrote %s", tokenFilePath(c))
	}

	// With a token, the same address is served, and asks for the token.
	secret := createToken(t, c, "alice", "*")
	// (The held port is busy indeed: with a token, serving it fails to
	// listen, so the refusals above came before any listening.)
	p := startChild(t, c, "serve", "--http", heldAddr)
	if code := p.wait(t, startLimit); code != exitError || !strings.Contains(p.stderr.String(), "in use") {
		t.Errorf("serve --http %s (held) with a token: exit %d, stderr %q; want exit 1, address in use", heldAddr, code, p.stderr)
	}
	s := startHTTPServe(t, c, "0.0.0.0:0")
	t.Logf("serving %s", s.url)
	_, port, err := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp"))
	if err != nil {
		t.Fatalf("url %q: %v", s.url, err)
	}
	url := "http://127.0.0.1:" + port + "/mcp"
	checkUnauthorized(t, "initialize without a token on 0.0.0.0", rawPost(t, url, "", "", initializeLine))
	checkInitialized(t, "initialize with the token on 0.0.0.0", rawPost(t, url, secret, "", initializeLine))
	code, took := s.stop(t)
	t.Logf("serve --http 0.0.0.0:0 exited %d %v after SIGTERM", code, took.Round(time.Millisecond))
	if code != exitOK {
		t.Errorf("serve --http 0.0.0.0:0 after SIGTERM: exit %d, want 0; stderr: %s", code, s.stderr)
	}
	noPanic(t, "serve --http 0.0.0.0:0", s.stderr.String())
	if strings.Contains(s.stderr.String(), secret) {
		t.Errorf("serve --http shows the token in its log:\n%s", s.stderr)
	}
}

// TestServeHTTPUsageErrors: a bad --http or --session-timeout exits 2
// before anything is served.
func TestServeHTTPUsageErrors(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	for _, tc := range []struct {
		args  []string
		words []string
	}{
		{[]string{"serve", "--http", "bogus"}, []string{"--http", "bogus", "host:port"}},
		{[]string{"serve", "--http", "127.0.0.1"}, []string{"--http", "host:port"}},
		{[]string{"serve", "--session-timeout", "5m"}, []string{"--session-timeout", "--http"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--session-timeout", "0s"}, []string{"--session-timeout"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--session-timeout", "-1m"}, []string{"--session-timeout"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--session-timeout", "soon"}, []string{"--session-timeout"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "extra"}, nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			p := startChild(t, c.on(t), tc.args...)
			code := p.wait(t, startLimit)
			stdout, stderr := p.stdout.String(), p.stderr.String()
			if code != exitUsage {
				t.Errorf("exit %d, want 2; stderr: %s", code, stderr)
			}
			if stdout != "" || !strings.HasPrefix(stderr, "hubsnap: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stdout %q, stderr %q; want nothing and one line starting \"hubsnap: \"", stdout, stderr)
			}
			mentions(t, "stderr", stderr, tc.words...)
		})
	}
}

// TestServeHTTPSessionAndSIGTERM: the go-sdk client calls tools through a
// token, in a session; SIGTERM with the session open (its GET stream held) exits 0
// promptly; the log has one line per request and never the token.
func TestServeHTTPSessionAndSIGTERM(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	secret := createToken(t, c, "alice", "table:read,release:read")
	s := startHTTPServe(t, c, "127.0.0.1:0")
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") {
		t.Errorf("url = %q, want http://127.0.0.1:PORT/mcp", s.url)
	}

	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	httpClient, bt := clientWithBearer(t, secret)
	// A session: protocol 2025-11-25 (go-sdk's client would take 2026-07-28,
	// served without one: serve_clients_test.go).
	session, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-http-e2e", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: httpClient, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to %s: %v; stderr: %s", s.url, err, s.stderr)
	}
	defer session.Close()
	if got := session.InitializeResult().ServerInfo.Name; got != "hubsnap" {
		t.Errorf("server name = %q, want hubsnap", got)
	}

	var tables mcpserver.ListTablesOutput
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "schema_list_tables", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("schema_list_tables: %v", err)
	}
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || json.Unmarshal(b, &tables) != nil || len(tables.Tables) != 6 {
		t.Errorf("schema_list_tables: isError %v, %s; want the 6 tables of rel_42", res.IsError, toolText(res))
	}
	var info mcpserver.ReleaseInfo
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("release_info: %v", err)
	}
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || json.Unmarshal(b, &info) != nil || info.ID != "rel_42" {
		t.Errorf("release_info: isError %v, %s; want rel_42", res.IsError, toolText(res))
	}
	// Outside the token's scopes: a FORBIDDEN tool error.
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "logic_list", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("logic_list: %v", err)
	}
	if text := toolText(res); !res.IsError || !strings.Contains(text, `"FORBIDDEN"`) || strings.Contains(text, "purchase_item") {
		t.Errorf("logic_list with table:read,release:read: isError %v, %s; want a FORBIDDEN tool error", res.IsError, text)
	}

	// The client holds its GET stream open.
	select {
	case <-bt.getOK:
	case <-time.After(startLimit):
		t.Fatalf("the client opened no GET stream within %v; stderr: %s", startLimit, s.stderr)
	}
	posts := bt.count(http.MethodPost)

	code, took := s.stop(t)
	t.Logf("serve --http exited %d %v after SIGTERM, with a session and its GET stream open", code, took.Round(time.Millisecond))
	stderr := s.stderr.String()
	if code != exitOK {
		t.Errorf("serve --http after SIGTERM: exit %d, want 0; stderr: %s", code, stderr)
	}
	noPanic(t, "serve --http", stderr)
	if strings.Contains(stderr, secret) || strings.Contains(stderr, strings.TrimPrefix(secret, "hubsnap_")) {
		t.Errorf("serve --http log shows the token:\n%s", stderr)
	}
	if s.stdout.String() != "" {
		t.Errorf("serve --http: stdout = %q, want nothing", s.stdout)
	}

	// The request log: one line per request, POSTs with their rpc, tool
	// calls with their tool and result, each with the token's name.
	lines := requestLog(stderr)
	var postLines, getLines int
	tools := map[string][]string{} // tool -> results
	var rpcs []string
	for _, l := range lines {
		if l["token"] != "alice" {
			t.Errorf("request line %v: token = %q, want alice", l, l["token"])
		}
		if l["status"] == "" || l["duration"] == "" || l["method"] == "" {
			t.Errorf("request line %v lacks status, duration or method", l)
		}
		switch l["method"] {
		case http.MethodPost:
			postLines++
			if l["rpc"] == "" {
				t.Errorf("POST request line without rpc=: %v", l)
			}
			rpcs = append(rpcs, l["rpc"])
			if l["rpc"] == "tools/call" {
				if l["tool"] == "" {
					t.Errorf("tools/call request line without tool=: %v", l)
				}
				tools[l["tool"]] = append(tools[l["tool"]], l["result"])
			} else if l["tool"] != "" {
				t.Errorf("%s request line with tool=: %v", l["rpc"], l)
			}
		case http.MethodGet:
			getLines++
		}
	}
	t.Logf("request log: %d lines (%d POST, %d GET); the client got %d POST and %d GET responses",
		len(lines), postLines, getLines, posts, bt.count(http.MethodGet))
	if postLines != posts {
		t.Errorf("the log has %d POST lines, the client got %d POST responses; want one line per request:\n%s", postLines, posts, stderr)
	}
	for _, want := range []string{"initialize", "notifications/initialized"} {
		if n := countOf(rpcs, want); n != 1 {
			t.Errorf("the log has %d lines with rpc=%s, want 1:\n%s", n, want, stderr)
		}
	}
	for tool, want := range map[string]string{"schema_list_tables": "ok", "release_info": "ok", "logic_list": "FORBIDDEN"} {
		if got := tools[tool]; len(got) != 1 || got[0] != want {
			t.Errorf("the log's lines for tool=%s have results %q, want one line with result=%s:\n%s", tool, got, want, stderr)
		}
	}
	if len(tools) != 3 {
		t.Errorf("the log names tools %v, want schema_list_tables, release_info and logic_list", tools)
	}
	if getLines < 1 {
		t.Errorf("the log has no line for the GET stream:\n%s", stderr)
	}
	if !strings.Contains(stderr, "msg=stopped") {
		t.Errorf("the log does not say the server stopped:\n%s", stderr)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// TestServeHTTPTokens: no or a bad token is 401 with WWW-Authenticate; a
// token is 200; a token revoked by another process is refused by the
// running server within two seconds, and other tokens still work.
func TestServeHTTPTokens(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	alice := createToken(t, c, "alice", "*")
	bob := createToken(t, c, "bob", "table:read")
	s := startHTTPServe(t, c, "127.0.0.1:0")

	checkUnauthorized(t, "initialize without Authorization", rawPost(t, s.url, "", "", initializeLine))
	checkUnauthorized(t, "initialize with an unknown token", rawPost(t, s.url, "hubsnap_"+strings.Repeat("A", 43), "", initializeLine))
	checkUnauthorized(t, "initialize with a token's hash-like garbage", rawPost(t, s.url, "sha256:00", "", initializeLine))
	checkInitialized(t, "initialize with alice", rawPost(t, s.url, alice, "", initializeLine))
	checkInitialized(t, "initialize with bob", rawPost(t, s.url, bob, "", initializeLine))
	if r := rawRequest(t, http.MethodGet, s.url, "", "", "", ""); r.status != http.StatusUnauthorized {
		t.Errorf("GET /mcp without a token: status %d, want 401", r.status)
	}

	// No protected-resource metadata: it would send clients into an OAuth
	// flow that issued tokens do not have.
	meta := rawRequest(t, http.MethodGet, strings.TrimSuffix(s.url, "/mcp")+"/.well-known/oauth-protected-resource/mcp", "", "", "", "")
	if meta.status != http.StatusNotFound {
		t.Errorf("protected-resource metadata with issued tokens: status %d, body %s; want 404", meta.status, meta.body)
	}

	// A session made with alice cannot be used with bob's token.
	init := rawPost(t, s.url, alice, "", initializeLine)
	checkInitialized(t, "initialize with alice for a session", init)
	if r := rawRequest(t, http.MethodPost, s.url, alice, "", initializedLine, init.session); r.status/100 != 2 {
		t.Errorf("notifications/initialized with alice: status %d %q", r.status, r.body)
	}
	listTools := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if r := rawRequest(t, http.MethodPost, s.url, bob, "", listTools, init.session); r.status/100 == 2 {
		t.Errorf("bob used alice's session: status %d %q, want a refusal", r.status, r.body)
	}
	if r := rawRequest(t, http.MethodPost, s.url, alice, "", listTools, init.session); r.status != http.StatusOK ||
		!strings.Contains(r.body, "schema_list_tables") {
		t.Errorf("tools/list with alice in her session: status %d %q", r.status, r.body)
	}

	// alice's GET stream of that session: revoking alice ends it.
	stream := openStream(t, s.url, alice, init.session)

	// Revoke alice in another process while the server runs.
	start := time.Now()
	if r := runChild(t, c, "", "token", "revoke", "alice"); r.code != exitOK {
		t.Fatalf("token revoke alice: exit %d, stderr %q", r.code, r.stderr)
	}
	revoked := time.Now()
	var refused time.Duration
	for {
		r := rawPost(t, s.url, alice, "", initializeLine)
		if r.status == http.StatusUnauthorized {
			refused = time.Since(revoked)
			checkUnauthorized(t, "initialize with alice after revoke", r)
			t.Logf("revoked token refused %v after token revoke returned (%v after it started)",
				refused.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			break
		}
		if r.status != http.StatusOK {
			t.Fatalf("initialize with alice while revoking: status %d %q", r.status, r.body)
		}
		if time.Since(revoked) > revokePollLimit {
			t.Fatalf("alice still accepted %v after token revoke; stderr: %s", revokePollLimit, s.stderr)
		}
		time.Sleep(25 * time.Millisecond)
	}
	if refused > revokeLimit {
		t.Errorf("the running server refused the revoked token only %v after token revoke, want within %v", refused, revokeLimit)
	}
	select {
	case <-stream:
		if ended := time.Since(revoked); ended > revokeLimit {
			t.Errorf("the revoked token's GET stream ended %v after token revoke, want within %v", ended, revokeLimit)
		} else {
			t.Logf("the revoked token's GET stream ended within %v of token revoke", ended.Round(time.Millisecond))
		}
	case <-time.After(revokePollLimit):
		t.Errorf("the revoked token's GET stream still open %v after token revoke", revokePollLimit)
	}
	// alice's open session is refused too; bob still works.
	checkUnauthorized(t, "alice's session after revoke",
		rawRequest(t, http.MethodPost, s.url, alice, "", listTools, init.session))
	checkInitialized(t, "initialize with bob after alice's revoke", rawPost(t, s.url, bob, "", initializeLine))

	// A token created while the server runs works within a second or so.
	carol := createToken(t, c, "carol", "*")
	created := time.Now()
	for {
		r := rawPost(t, s.url, carol, "", initializeLine)
		if r.status == http.StatusOK {
			t.Logf("new token accepted %v after token create", time.Since(created).Round(time.Millisecond))
			break
		}
		if r.status != http.StatusUnauthorized || time.Since(created) > revokePollLimit {
			t.Fatalf("initialize with a new token: status %d %q after %v", r.status, r.body, time.Since(created))
		}
		time.Sleep(25 * time.Millisecond)
	}

	// Every token revoked: the server does not open up again.
	c.ok("token", "revoke", "bob")
	c.ok("token", "revoke", "carol")
	allGone := time.Now()
	for { // until the server has seen the change
		r := rawPost(t, s.url, bob, "", initializeLine)
		if r.status == http.StatusUnauthorized {
			break
		}
		if r.status != http.StatusOK || time.Since(allGone) > revokePollLimit {
			t.Fatalf("initialize with bob after revoking every token: status %d %q after %v", r.status, r.body, time.Since(allGone))
		}
		time.Sleep(25 * time.Millisecond)
	}
	checkUnauthorized(t, "initialize without a token once every token was revoked", rawPost(t, s.url, "", "", initializeLine))

	code, took := s.stop(t)
	t.Logf("serve --http exited %d %v after SIGTERM", code, took.Round(time.Millisecond))
	if code != exitOK {
		t.Errorf("serve --http after SIGTERM: exit %d, want 0", code)
	}
	stderr := s.stderr.String()
	noPanic(t, "serve --http", stderr)
	for _, secret := range []string{alice, bob, carol} {
		if strings.Contains(stderr, secret) {
			t.Errorf("serve --http log shows a token:\n%s", stderr)
		}
	}
	// The refused requests are logged too, with status 401 and no token name.
	unauthorized := 0
	for _, l := range requestLog(stderr) {
		if l["status"] == "401" {
			unauthorized++
			if l["token"] != "" {
				t.Errorf("a refused request is logged with token=%s: %v", l["token"], l)
			}
		}
	}
	if unauthorized < 4 {
		t.Errorf("the log has %d lines with status=401, want every refused request:\n%s", unauthorized, stderr)
	}
}

// TestServeHTTPForeignHost: DNS-rebinding protection stays on: a request
// that reaches the loopback server with another Host is refused with 403,
// with or without tokens.
func TestServeHTTPForeignHost(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)

	// No token issued: the loopback server is open, to loopback Hosts only.
	s := startHTTPServe(t, c, "127.0.0.1:0")
	checkInitialized(t, "initialize without tokens", rawPost(t, s.url, "", "", initializeLine))
	for _, host := range []string{"evil.example.com", "evil.example.com:80", "127.0.0.1.evil.example.com"} {
		if r := rawPost(t, s.url, "", host, initializeLine); r.status != http.StatusForbidden {
			t.Errorf("Host: %s, no tokens: status %d %q, want 403", host, r.status, r.body)
		}
	}
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("serve --http after SIGTERM: exit %d, want 0; stderr: %s", code, s.stderr)
	}

	// With a token: the token is checked, and the Host still is.
	secret := createToken(t, c, "alice", "*")
	s = startHTTPServe(t, c, "127.0.0.1:0")
	if r := rawPost(t, s.url, secret, "evil.example.com", initializeLine); r.status != http.StatusForbidden {
		t.Errorf("Host: evil.example.com with a token: status %d %q, want 403", r.status, r.body)
	}
	if r := rawPost(t, s.url, "", "evil.example.com", initializeLine); r.status != http.StatusUnauthorized &&
		r.status != http.StatusForbidden {
		t.Errorf("Host: evil.example.com without a token: status %d %q, want 401 or 403", r.status, r.body)
	}
	checkInitialized(t, "initialize with the token", rawPost(t, s.url, secret, "", initializeLine))
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("serve --http after SIGTERM: exit %d, want 0; stderr: %s", code, s.stderr)
	}
	noPanic(t, "serve --http", s.stderr.String())
}

// TestServeHTTPSessionTimeout: --session-timeout closes an idle session.
func TestServeHTTPSessionTimeout(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	s := startHTTPServe(t, c, "127.0.0.1:0", "--session-timeout", "1s")
	init := rawPost(t, s.url, "", "", initializeLine)
	checkInitialized(t, "initialize", init)
	if r := rawRequest(t, http.MethodPost, s.url, "", "", initializedLine, init.session); r.status/100 != 2 {
		t.Fatalf("notifications/initialized: status %d %q", r.status, r.body)
	}
	start := time.Now()
	listTools := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	// Wait without requests (each would keep the session alive), then ask.
	for {
		time.Sleep(1500 * time.Millisecond)
		r := rawRequest(t, http.MethodPost, s.url, "", "", listTools, init.session)
		if r.status == http.StatusNotFound {
			t.Logf("idle session closed; seen %v after its last request", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Since(start) > revokePollLimit {
			t.Fatalf("session still open %v after its last request with --session-timeout 1s: status %d", time.Since(start), r.status)
		}
		start = time.Now() // that request kept it alive
	}
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("serve --http after SIGTERM: exit %d, want 0; stderr: %s", code, s.stderr)
	}
}
