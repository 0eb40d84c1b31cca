package transport

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
)

// Protocol 2026-07-28 over HTTP: served without sessions, at the default
// endpoint beside the session era and with HTTPOptions.Stateless; cache
// hints; what a stateless server cannot do.

// modernEra is the protocol without sessions.
const modernEra = "2026-07-28"

// connectModern connects go-sdk's client with its newest protocol and
// opts, and checks that it negotiated modernEra.
func connectModern(tb testing.TB, url, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	hc, _ := bearerClient(tb, token)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-modern-test", Version: "v0"}, opts).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		tb.Fatalf("connect with protocol %s: %v", modernEra, err)
	}
	tb.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != modernEra {
		tb.Fatalf("go-sdk's client negotiated %s, want %s", got, modernEra)
	}
	return cs
}

// Both eras at the default endpoint: go-sdk's client negotiates 2026-07-28
// (through server/discover, without a session) and calls tools, reads
// resources and completes; a client of 2025-11-25 gets a session as
// before; no 2026-07-28 request opens one.
func TestHTTPBothEras(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := map[bool]string{false: "default", true: "stateless"}[stateless]
		t.Run(name, func(t *testing.T) {
			env := startHTTP(t, HTTPOptions{Stateless: stateless})
			modern := connectModern(t, env.url, "", nil)
			old := env.mustConnect(t, "")
			if got := old.InitializeResult().ProtocolVersion; got != sessionEra {
				t.Errorf("a 2025-11-25 client negotiated %s", got)
			}
			for _, cs := range []*mcp.ClientSession{modern, old} {
				info := success[mcpserver.ReleaseInfo](t, call(t, cs, "release_info", map[string]any{}))
				if info.ID != "rel_42" {
					t.Errorf("release_info: %s, want rel_42", info.ID)
				}
				res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "hubsnap://tables/main/posts"})
				if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"posts"`) {
					t.Errorf("read hubsnap://tables/main/posts: %v, %v", res, err)
				}
				comp, err := cs.Complete(t.Context(), &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "hubsnap://tables/{connection}/{table}"},
					Argument: mcp.CompleteParamsArgument{Name: "table", Value: "p"},
				})
				if err != nil || strings.Join(comp.Completion.Values, " ") != "posts purchases" {
					t.Errorf("complete a table: %v, %v", comp, err)
				}
			}
			wantSessions := map[bool]int{false: 1, true: 0}[stateless]
			if n := sessionCount(env.srv); n != wantSessions {
				t.Errorf("%d sessions open, want %d (the 2025-11-25 client's, unless stateless)", n, wantSessions)
			}
			logs := env.logs.String()
			if !containsAll(logs, "rpc=server/discover status=200") {
				t.Errorf("no server/discover answered 200 in the log:\n%s", logs)
			}
			if strings.Contains(logs, "-32022") {
				t.Errorf("a request was refused for its protocol version:\n%s", logs)
			}
		})
	}
}

// A session-less server/discover at the default endpoint names 2026-07-28
// among the versions (the stateful handler alone would not, and would
// then refuse every 2026-07-28 request with -32022).
func TestHTTPDiscoverAtDefaultEndpoint(t *testing.T) {
	env := startHTTP(t, HTTPOptions{})
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, header := range []bool{true, false} {
		req, err := http.NewRequest(http.MethodPost, env.url, strings.NewReader(discover))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if header {
			req.Header.Set("Mcp-Protocol-Version", modernEra)
			req.Header.Set("Mcp-Method", "server/discover")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readSSE(t, resp)
		if header && (resp.StatusCode != http.StatusOK || !strings.Contains(body, `"2026-07-28"`)) {
			t.Errorf("server/discover with 2026-07-28 headers: %s %s, want 200 naming 2026-07-28", resp.Status, body)
		}
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("server/discover (headers %v) opened a session", header)
		}
		t.Logf("server/discover (headers %v): %s %.300s", header, resp.Status, body)
	}
}

// readSSE returns a response's body; for an event stream, the data of its
// events.
func readSSE(tb testing.TB, resp *http.Response) string {
	tb.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return b.String()
	}
	var data []string
	for line := range strings.Lines(b.String()) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
			data = append(data, strings.TrimSpace(d))
		}
	}
	return strings.Join(data, "\n")
}

// Stateless: no GET stream, no session cap for 2026-07-28 requests, and a
// legacy subscription (which could never be notified) is refused with a
// reason.
func TestHTTPStatelessLimits(t *testing.T) {
	env := startHTTP(t, HTTPOptions{Stateless: true, MaxSessions: 1})
	resp, body := rawHTTP{method: http.MethodGet, url: env.url}.do(t)
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET with --stateless: %s %s, want 405", resp.Status, body)
	}
	for range 3 { // more clients than MaxSessions: none holds a session
		cs := connectModern(t, env.url, "", nil)
		call(t, cs, "schema_list_tables", map[string]any{})
	}
	old := env.mustConnect(t, "")
	err := old.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "hubsnap://release"})
	if err == nil || !strings.Contains(err.Error(), "no sessions") {
		t.Errorf("resources/subscribe of a 2025-11-25 client on a stateless server: %v, want an error saying why", err)
	}

	// The default endpoint: a 2026-07-28 request is not a session, so it
	// neither takes a place nor evicts one.
	env = startHTTP(t, HTTPOptions{MaxSessions: 1})
	sid := env.initialize(t, "")
	cs := connectModern(t, env.url, "", nil)
	call(t, cs, "schema_list_tables", map[string]any{})
	if resp, body := (rawHTTP{url: env.url, session: sid, body: toolsListBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Errorf("the one session after a 2026-07-28 call: %s %.100s, want 200", resp.Status, body)
	}
}

// Cache hints for 2026-07-28 clients: the lists for listTTL, a resource
// read for readTTL; public without auth, private with a token.
func TestHTTPCacheHints(t *testing.T) {
	// mcpserver's listTTL and readTTL (cache_hints.go).
	const listTTL, readTTL = 5 * time.Minute, 30 * time.Second
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"alice", []string{"*"}})
	check := func(what string, c mcp.Cacheable, ttl time.Duration, scope string) {
		t.Helper()
		if c.TTLMs != int(ttl.Milliseconds()) || c.CacheScope != scope {
			t.Errorf("%s: ttlMs %d, cacheScope %q; want %d, %q", what, c.TTLMs, c.CacheScope, ttl.Milliseconds(), scope)
		}
	}
	cs := connectModern(t, env.url, env.secrets["alice"], nil)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	check("tools/list", tools.Cacheable, listTTL, "private")
	resources, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	check("resources/list", resources.Cacheable, listTTL, "private")
	templates, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	check("resources/templates/list", templates.Cacheable, listTTL, "private")
	read, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "hubsnap://release"})
	if err != nil {
		t.Fatal(err)
	}
	check("resources/read", read.Cacheable, readTTL, "private")

	// Without auth: public.
	open := startHTTP(t, HTTPOptions{Stateless: true})
	tools, err = connectModern(t, open.url, "", nil).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	check("tools/list without auth", tools.Cacheable, listTTL, "public")
}

// A 2026-07-28 client holding a subscriptions/listen stream on a stateless
// server hears that the release changed (resources/list_changed, and
// resources/updated for a URI it subscribed to), which drops what it has
// cached: the protocol's way to take a cache hint back.
func TestHTTPStatelessListenHearsReleaseChange(t *testing.T) {
	env := startHTTP(t, HTTPOptions{Stateless: true})
	listChanged := make(chan struct{}, 10)
	updated := make(chan string, 10)
	cs := connectModern(t, env.url, "", &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			updated <- r.Params.URI
		},
	})
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "hubsnap://release"}); err != nil {
		t.Fatal(err)
	}
	first, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "hubsnap://release"})
	if err != nil {
		t.Fatal(err)
	}
	// The listen streams are open once the server counts their subscribers.
	eventually(t, patience, "the subscription registered", func() bool {
		_, uris := hubsnapSubscriptions(env.srv) // the one URI it listens to
		return uris > 0
	})
	next := shopSnapshot(t)
	next.Release.ID, next.Release.Version = "rel_43", 43
	putCurrent(t, env.st, next)
	env.srv.CheckRelease(t.Context())
	for what, ch := range map[string]<-chan struct{}{"resources/list_changed": listChanged} {
		select {
		case <-ch:
		case <-time.After(patience):
			t.Fatalf("no %s on the listen stream after the release changed", what)
		}
	}
	select {
	case uri := <-updated:
		if uri != "hubsnap://release" {
			t.Errorf("resources/updated for %s, want %s", uri, "hubsnap://release")
		}
	case <-time.After(patience):
		t.Fatal("no resources/updated for the subscribed URI")
	}
	again, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "hubsnap://release"})
	if err != nil {
		t.Fatal(err)
	}
	var a, b mcpserver.ReleaseInfo
	json.Unmarshal([]byte(first.Contents[0].Text), &a)
	json.Unmarshal([]byte(again.Contents[0].Text), &b)
	if a.ID != "rel_42" || b.ID != "rel_43" {
		t.Errorf("hubsnap://release read %s, then %s after the change; want rel_42 then rel_43 (not the cached answer)", a.ID, b.ID)
	}
}

// A connection that never sent a request (a client's spare connection, a
// load balancer's probe) does not hold shutdown: http.Server.Shutdown
// alone would wait five seconds for it and then cut it off.
func TestHTTPShutdownWithFreshConnection(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	logs := &lockedBuffer{}
	srv := mcpserver.New(st, mcpserver.Options{Target: shopDev, Version: "test", Log: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(srv.Shutdown)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- ServeStreamable(ctx, srv, ln, HTTPOptions{Stateless: true}) }()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The server has accepted it once a request on another connection is
	// answered after it.
	connectModern(t, "http://"+ln.Addr().String()+mcpPath, "", nil)
	cancel()
	start := time.Now()
	select {
	case err := <-served:
		t.Logf("ServeStreamable returned %v after the context ended, with a connection that sent nothing", time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Errorf("ServeStreamable = %v", err)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("shutdown took %v: the fresh connection held it", time.Since(start))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStreamable did not return within 10 s")
	}
	if strings.Contains(logs.String(), "cut off") {
		t.Errorf("the log says requests were cut off:\n%s", logs)
	}
}
