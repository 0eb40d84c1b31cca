package main

// serve --sync-every (docs/team.md): the real binary syncs from a real Hub in
// the background, over HTTP and over stdio.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/hubtest"
	"github.com/hubsnap/hubsnap/mcpserver"
)

// syncTick is the --sync-every of these tests, and syncWithin how soon a
// release published on the Hub must be served: two ticks, plus the
// watcher's two seconds, plus slack for a loaded machine.
const (
	syncTick   = time.Second
	syncWithin = 2*syncTick + 2*time.Second + 3*time.Second
)

// servedRelease asks the server at url for release_info (a fresh client,
// protocol 2026-07-28: no session) and returns the release id, or the
// error code.
func servedRelease(tb testing.TB, url string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startLimit)
	defer cancel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-sync-test", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		tb.Fatalf("connect to %s: %v", url, err)
	}
	defer cs.Close()
	return releaseOf(tb, ctx, cs)
}

// releaseOf calls release_info in cs and returns the release id, or the
// error code.
func releaseOf(tb testing.TB, ctx context.Context, cs *mcp.ClientSession) string {
	tb.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}})
	if err != nil {
		tb.Fatalf("release_info: %v", err)
	}
	var info mcpserver.ReleaseInfo
	var fail struct{ Error struct{ Code string } }
	if json.Unmarshal([]byte(toolText(res)), &fail); fail.Error.Code != "" {
		return fail.Error.Code
	}
	if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &info) != nil {
		tb.Fatalf("release_info: %s", toolText(res))
	}
	return info.ID
}

// waitServed polls until the server serves id and returns how long that
// took, or fails after within.
func waitServed(tb testing.TB, what string, within time.Duration, id string, served func() string) time.Duration {
	tb.Helper()
	start := time.Now()
	for {
		got := served()
		if got == id {
			return time.Since(start)
		}
		if time.Since(start) > within {
			tb.Fatalf("%s: still serving %s %v later, want %s", what, got, within, id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServeSyncEvery: a fresh cache syncs first, then serves; a release
// published on the Hub is served within two ticks; a failing Hub is
// logged (Warn) and retried while the last good release is served; the
// Hub's token never shows.
func TestServeSyncEvery(t *testing.T) {
	t.Parallel()
	const token = "hubtok_SYNC_never_show_41d2"
	h := newHub(t, release(t, "rel_42", 42))
	var down atomic.Bool
	c := hubCLI(t, h).with("HUBSNAP_HUB", hubFront(t, h, token, &down), "HUBSNAP_TOKEN", token)

	s := startHTTPServe(t, c, "127.0.0.1:0", "--sync-every", syncTick.String())
	mentions(t, "the log of a fresh cache", s.stderr.String(), "no current release yet", "msg=\"background sync\" release=rel_42")
	if got := servedRelease(t, s.url); got != "rel_42" {
		t.Fatalf("served %s, want rel_42", got)
	}

	h.Add("shop", release(t, "rel_43", 43))
	took := waitServed(t, "after rel_43 was published", syncWithin, "rel_43", func() string { return servedRelease(t, s.url) })
	t.Logf("rel_43 served %v after it was published on the Hub (--sync-every %v)", took.Round(time.Millisecond), syncTick)

	// The Hub fails: logged and retried, rel_43 still served.
	down.Store(true)
	failed := time.Now()
	for !strings.Contains(s.stderr.String(), `level=WARN msg="background sync failed"`) {
		if time.Since(failed) > syncWithin+30*time.Second { // the Hub client retries 5xx a few times
			t.Fatalf("no failed sync logged; stderr: %s", s.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := servedRelease(t, s.url); got != "rel_43" {
		t.Errorf("with the Hub down: served %s, want rel_43", got)
	}
	mentions(t, "the failure line", s.stderr.String(), "serving=rel_43", "retry_in=1s")

	down.Store(false)
	h.Add("shop", release(t, "rel_44", 44))
	waitServed(t, "after the Hub came back", syncWithin+30*time.Second, "rel_44", func() string { return servedRelease(t, s.url) })

	code, _ := s.stop(t)
	stderr := s.stderr.String()
	if code != exitOK {
		t.Errorf("serve --sync-every after SIGTERM: exit %d; stderr: %s", code, stderr)
	}
	noPanic(t, "serve --sync-every", stderr)
	if strings.Contains(stderr, token) {
		t.Errorf("the log shows the Hub token:\n%s", stderr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "background sync failed") && strings.Contains(l, "context canceled") {
			t.Errorf("the stop was logged as a failed sync: %s", l)
		}
	}
	t.Logf("sync lines:\n%s", grepLines(stderr, "sync"))
}

// hubFront serves h behind a front of its own that asks for token and,
// while down is set, answers 502. (hubtest.Hub's Token and Fault are read
// unlocked by its handler: set while it serves, they race.)
func hubFront(tb testing.TB, h *hubtest.Hub, token string, down *atomic.Bool) string {
	tb.Helper()
	target, err := url.Parse(h.URL())
	if err != nil {
		tb.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != "Bearer "+token:
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		case down.Load():
			http.Error(w, "down for maintenance", http.StatusBadGateway)
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	tb.Cleanup(front.Close)
	return front.URL
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for l := range strings.Lines(s) {
		if strings.Contains(l, sub) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}

// TestServeSyncEveryStdio: --sync-every works over stdio too.
func TestServeSyncEveryStdio(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t) // rel_42 synced; its Hub serves only rel_42
	h := newHub(t, release(t, "rel_42", 42))
	c = c.with("HUBSNAP_HUB", h.URL()).with("HUBSNAP_TOKEN", "")

	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	cmd := hubsnapCmd(t, c, "serve", "--sync-every", syncTick.String())
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-sync-stdio", Version: "0"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr: %s", err, stderr)
	}
	defer cs.Close()
	h.Add("shop", release(t, "rel_43", 43))
	took := waitServed(t, "over stdio", syncWithin, "rel_43", func() string { return releaseOf(t, ctx, cs) })
	t.Logf("rel_43 served over stdio %v after it was published", took.Round(time.Millisecond))
	// The child's stderr is copied by a goroutine of os/exec: wait for it.
	for deadline := time.Now().Add(startLimit); !strings.Contains(stderr.String(), `msg="background sync" release=rel_43`); {
		if time.Now().After(deadline) {
			t.Fatalf("no background sync of rel_43 in stderr: %s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeSyncEveryUsage: --sync-every without a Hub, or too short, is a
// usage error; a first sync that fails on an empty cache is an error.
func TestServeSyncEveryUsage(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	noHub := c.with("HUBSNAP_HUB", "")
	for _, tc := range []struct {
		c     *cli
		args  []string
		code  int
		words []string
	}{
		{noHub, []string{"serve", "--sync-every", "5m"}, exitUsage, []string{"--sync-every", "hub"}},
		{c, []string{"serve", "--sync-every", "10ms"}, exitUsage, []string{"--sync-every", "at least"}},
		{c, []string{"serve", "--sync-every", "-5m"}, exitUsage, []string{"--sync-every"}},
		{c, []string{"serve", "--stateless"}, exitUsage, []string{"--stateless", "--http"}},
		{c, []string{"serve", "--http", "127.0.0.1:0", "--stateless", "--session-timeout", "1m"}, exitUsage,
			[]string{"--session-timeout", "--stateless"}},
	} {
		r := runChild(t, tc.c, "", tc.args...)
		if r.code != tc.code || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and one line", tc.args, r.code, r.stdout, r.stderr, tc.code)
		}
		mentions(t, strings.Join(tc.args, " "), r.stderr, tc.words...)
	}

	// An empty cache and a Hub that fails: nothing to serve.
	h := newHub(t) // knows no project: 404
	fresh := hubCLI(t, h)
	r := runChild(t, fresh, "", "serve", "--http", "127.0.0.1:0", "--sync-every", "1m")
	if r.code != exitError {
		t.Errorf("serve --sync-every on an empty cache with a failing Hub: exit %d, stderr %q; want 1", r.code, r.stderr)
	}
	mentions(t, "its error", r.stderr, "no current release", "first sync failed")
	if strings.Contains(r.stderr, "url=") {
		t.Errorf("it served: %s", r.stderr)
	}
}
