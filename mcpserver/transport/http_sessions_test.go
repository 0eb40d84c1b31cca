package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// The session table (http_sessions.go), issue 17: idle sessions kept while
// their client holds its GET stream (item 1), the cap exact under
// concurrency with a fair share per token (item 10), and a revoked
// token's sessions closed (item 11).

// A session whose client holds its GET stream stays open however long it
// calls nothing; one without a stream closes after SessionTimeout, and its
// client gets 404, which go-sdk's client reads as ErrSessionMissing.
//
// Before: go-sdk's SessionTimeout counted POSTs only, and the call after
// 2.5 s of idleness with a 1 s timeout failed with "session not found"
// for every client but mcp-remote.
// sessionCount is how many sessions with an id (made by initialize) are
// open; the stateless handler's one-request sessions have none.
func sessionCount(s *mcpserver.Server) int {
	n := 0
	for ss := range s.MCP().Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

func TestHTTPIdleSessionWithStreamStays(t *testing.T) {
	const timeout = time.Second
	env := startHTTP(t, HTTPOptions{SessionTimeout: timeout}, tokenSpec{"alice", []string{"*"}})
	alice := env.secrets["alice"]
	cs, b, err := connectHTTP(t, env.url, alice)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "the client's GET stream open", func() bool { return b.gets.Load() > 0 })
	if res := call(t, cs, "release_info", map[string]any{}); res.IsError {
		t.Fatal(text(t, res))
	}
	raw := env.initialize(t, alice) // no GET stream: idle once initialized

	time.Sleep(3 * timeout)
	res, err := callCtx(cs, "release_info", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("a call after %v idle with the GET stream open (timeout %v): %v", 3*timeout, timeout, err)
	}
	t.Logf("go-sdk client: called after %v idle with its GET stream open: ok", 3*timeout)

	resp, body := rawHTTP{url: env.url, token: alice, session: raw, body: toolsListBody}.do(t)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "initialize") {
		t.Errorf("a session idle past its timeout without a stream: %s %q, want 404 saying to initialize", resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("404 Content-Type %q, want text/plain (go-sdk's client then sees ErrSessionMissing)", ct)
	}

	// A session the server closed (here: DELETE by someone holding the
	// token and id): go-sdk's client learns ErrSessionMissing, so that its
	// application can connect again.
	if resp, _ := (rawHTTP{method: http.MethodDelete, url: env.url, token: alice, session: cs.ID()}).do(t); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	_, err = callCtx(cs, "release_info", map[string]any{})
	if !errors.Is(err, mcp.ErrSessionMissing) {
		t.Errorf("a call in a closed session: %v, want mcp.ErrSessionMissing", err)
	}
	again := env.mustConnect(t, alice)
	if res := call(t, again, "release_info", map[string]any{}); res.IsError {
		t.Errorf("a new session after ErrSessionMissing: %s", text(t, res))
	}
}

// A session in use (its GET stream open) is evicted after idle ones, even
// when it is older.
func TestHTTPEvictionSparesSessionsInUse(t *testing.T) {
	env := startHTTP(t, HTTPOptions{MaxSessions: 2})
	streaming := env.initialize(t, "")
	stream := openGET(t, env.url, "", streaming)
	idle := env.initialize(t, "")
	third := env.initialize(t, "")
	for sid, want := range map[string]int{streaming: http.StatusOK, idle: http.StatusNotFound, third: http.StatusOK} {
		if resp, body := (rawHTTP{url: env.url, session: sid, body: toolsListBody}).do(t); resp.StatusCode != want {
			t.Errorf("session %s: %s, want %d: %.100s", sid[:6], resp.Status, want, body)
		}
	}
	select {
	case <-stream:
		t.Error("the GET stream of the session in use ended")
	default:
	}
}

// openGET opens the GET stream of a session and returns a channel closed
// when the server ends it.
func openGET(tb testing.TB, url, token, sid string) <-chan struct{} {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		tb.Fatalf("GET stream of %s: %v %v", sid[:6], err, resp)
	}
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		close(ended)
	}()
	tb.Cleanup(func() {
		cancel()
		<-ended
		tr.CloseIdleConnections()
	})
	return ended
}

// initializeOn opens a raw connection and sends an initialize with token,
// all but its last byte, so that many can be released at once.
func initializeOn(tb testing.TB, addr, token string) net.Conn {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		addr, token, len(initializeBody), initializeBody[:len(initializeBody)-1])
	return c
}

// statusOf reads the status code of the answer on c.
func statusOf(c net.Conn) int {
	c.SetReadDeadline(time.Now().Add(hangGuard))
	buf := make([]byte, len("HTTP/1.1 200"))
	if _, err := io.ReadFull(c, buf); err != nil {
		return 0
	}
	var code int
	fmt.Sscanf(string(buf[len("HTTP/1.1 "):]), "%d", &code)
	return code
}

// The cap is exact under concurrency: initializes released all at once
// never make more sessions than MaxSessions, in go-sdk's count or the
// table's, at any moment.
//
// Before: the count was checked before go-sdk made the session; 3,000
// initializes released at once opened 1,003 sessions with a cap of 1,000
// here (1,258 in the issue).
func TestHTTPSessionCapIsExact(t *testing.T) {
	const limit, clients = 50, 400
	env := startHTTP(t, HTTPOptions{MaxSessions: limit}, tokenSpec{"alice", []string{"*"}})
	addr := strings.TrimPrefix(env.base, "http://")
	conns := make([]net.Conn, clients)
	for i := range conns {
		conns[i] = initializeOn(t, addr, env.secrets["alice"])
	}
	var most atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(sessionCount(env.srv)); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			default:
				time.Sleep(time.Millisecond)
			}
		}
	}()
	for _, c := range conns {
		c.Write([]byte("}"))
	}
	codes := map[int]int{}
	for _, c := range conns {
		codes[statusOf(c)]++
	}
	close(stop)
	<-sampled
	total, _ := env.srvTable().count("")
	t.Logf("%d initializes released at once, cap %d: answers %v; at most %d sessions seen, %d open, table %d",
		clients, limit, codes, most.Load(), sessionCount(env.srv), total)
	if most.Load() > limit || sessionCount(env.srv) > limit || total > limit {
		t.Errorf("more sessions than MaxSessions %d: at most %d seen, %d open, table %d", limit, most.Load(), sessionCount(env.srv), total)
	}
	if codes[http.StatusOK] < limit {
		t.Errorf("%d initializes answered 200, want at least %d", codes[http.StatusOK], limit)
	}
	if codes[http.StatusOK]+codes[http.StatusServiceUnavailable] != clients {
		t.Errorf("answers %v: want only 200 and 503", codes)
	}
}

// srvTable is the session table of the handler env serves.
func (e *httpEnv) srvTable() *sessionTable {
	h, _ := e.ts.Config.Handler.(*http.ServeMux).Handler(httptest.NewRequest(http.MethodPost, e.url, nil))
	return h.(*httpHandler).sessions
}

// One token cannot take every place: beyond its fair share, a token's new
// session evicts its own least recently used one, and a newcomer evicts a
// session of a token over its share, never of one within its own.
func TestHTTPSessionFairShare(t *testing.T) {
	const limit = 10
	env := startHTTP(t, HTTPOptions{MaxSessions: limit},
		tokenSpec{"hog", []string{"*"}}, tokenSpec{"bob", []string{"*"}}, tokenSpec{"carol", []string{"*"}})
	hog, bob, carol := env.secrets["hog"], env.secrets["bob"], env.secrets["carol"]
	// bob's sessions are the oldest: the globally least recently used.
	bobs := []string{env.initialize(t, bob), env.initialize(t, bob)}
	for range 40 {
		env.initialize(t, hog)
	}
	table := env.srvTable()
	if total, owned := table.count("token:hog"); total != limit || owned != limit-2 {
		t.Errorf("after 40 sessions of hog: %d open, hog holds %d; want %d and %d", total, owned, limit, limit-2)
	}
	carols := []string{env.initialize(t, carol), env.initialize(t, carol), env.initialize(t, carol)}
	_, owned := table.count("token:hog")
	t.Logf("cap %d: bob holds 2, carol 3, hog %d of the 43 it opened", limit, owned)
	if owned != limit-5 {
		t.Errorf("hog holds %d, want %d", owned, limit-5)
	}
	for token, sids := range map[string][]string{bob: bobs, carol: carols} {
		for _, sid := range sids {
			if resp, body := (rawHTTP{url: env.url, token: token, session: sid, body: toolsListBody}).do(t); resp.StatusCode != http.StatusOK {
				t.Errorf("a session within its token's share: %s: %.100s", resp.Status, body)
			}
		}
	}
}

// Revoking a token closes the sessions it opened at once: their GET
// streams end within about a second and a half; another token's session
// stays.
//
// Before: the revoked token's GET stream stayed open (and kept receiving
// notifications) until its session timed out.
func TestHTTPRevokeClosesSessions(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"doomed", []string{"*"}}, tokenSpec{"survivor", []string{"*"}})
	doomed, survivor := env.secrets["doomed"], env.secrets["survivor"]
	streams := map[string]<-chan struct{}{}
	for range 3 {
		sid := env.initialize(t, doomed)
		streams[sid] = openGET(t, env.url, doomed, sid)
	}
	kept := env.initialize(t, survivor)
	keptStream := openGET(t, env.url, survivor, kept)

	if _, err := access.NewFile(filepath.Dir(env.file.Path)).Revoke("doomed"); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	var wg sync.WaitGroup
	for sid, ended := range streams {
		wg.Go(func() {
			select {
			case <-ended:
				if took := time.Since(revoked); took > 2500*time.Millisecond {
					t.Errorf("session %s: its GET stream ended %v after revoke, want within 2.5s", sid[:6], took)
				}
			case <-time.After(patience):
				t.Errorf("session %s: its GET stream still open %v after revoke", sid[:6], patience)
			}
		})
	}
	wg.Wait()
	t.Logf("the revoked token's 3 GET streams ended within %v of revoke", time.Since(revoked).Round(time.Millisecond))
	if total, owned := env.srvTable().count("token:doomed"); total != 1 || owned != 0 {
		t.Errorf("after revoke: %d sessions, doomed holds %d; want 1 and 0", total, owned)
	}
	select {
	case <-keptStream:
		t.Error("the other token's GET stream ended")
	default:
	}
	if resp, body := (rawHTTP{url: env.url, token: survivor, session: kept, body: toolsListBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Errorf("the other token's session: %s: %.100s", resp.Status, body)
	}
}
