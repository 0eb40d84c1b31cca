package transport

import (
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
)

// Subscriptions (issue 17, item 9): a URI must name something of the
// current release, a session holds at most mcpserver.MaxSubscriptions, and a
// session's subscriptions are freed, hubsnap's and go-sdk's, when it
// closes.
//
// Before: one table:read token subscribing 20,000 unique URIs per
// session, then deleting the session, grew the server by 90 MB a round;
// here, 500 unique URIs per round left 500, 1,000, then 1,500 URIs in
// both hubsnap's map and go-sdk's after three rounds of subscribe and
// DELETE.

// sdkSubscribedURIs is how many URIs go-sdk's server holds in its
// subscription map (an unexported field: read under its own mutex, which
// only a test may reach this way).
func sdkSubscribedURIs(s *mcp.Server) int {
	v := reflect.ValueOf(s).Elem()
	mu := (*sync.Mutex)(unsafe.Pointer(v.FieldByName("mu").UnsafeAddr()))
	mu.Lock()
	defer mu.Unlock()
	return v.FieldByName("resourceSubscriptions").Len()
}

// hubsnapSubscriptions is how many sessions and subscriptions hubsnap
// tracks (mcpserver.Server's unexported map, read under its own mutex, as
// sdkSubscribedURIs reads go-sdk's: only a test may reach it this way).
func hubsnapSubscriptions(s *mcpserver.Server) (sessions, uris int) {
	v := reflect.ValueOf(s).Elem()
	mu := (*sync.Mutex)(unsafe.Pointer(v.FieldByName("mu").UnsafeAddr()))
	mu.Lock()
	defer mu.Unlock()
	subs := v.FieldByName("subs")
	for it := subs.MapRange(); it.Next(); {
		uris += it.Value().Len()
	}
	return subs.Len(), uris
}

// variants returns n distinct URIs of tables of the shop fixture, spelled
// with percent-encoded letters: what a client may send to make each URI
// unique.
func variants(n int) []string {
	var uris []string
	for _, table := range []string{"main/users", "main/posts", "main/items", "analytics/users"} {
		conn, name, _ := strings.Cut(table, "/")
		letters := conn + name
		for mask := 0; len(uris) < n && mask < 1<<len(letters); mask++ {
			var b strings.Builder
			b.WriteString("hubsnap://tables/")
			for i := range len(letters) {
				if i == len(conn) {
					b.WriteByte('/')
				}
				if mask&(1<<i) != 0 {
					fmt.Fprintf(&b, "%%%02X", letters[i])
				} else {
					b.WriteByte(letters[i])
				}
			}
			uris = append(uris, b.String())
		}
	}
	return uris
}

// subscribeRaw subscribes to uri in session sid and returns the JSON-RPC
// error code (0 for none).
func subscribeRaw(tb testing.TB, env *httpEnv, token, sid, uri string, id int) int64 {
	tb.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, id, uri)
	resp, text := rawHTTP{url: env.url, token: token, session: sid, body: body}.do(tb)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("subscribe %s: %s %s", uri, resp.Status, text)
	}
	var code int64
	if i := strings.Index(text, `"code":`); i >= 0 {
		fmt.Sscanf(text[i+len(`"code":`):], "%d", &code)
	}
	return code
}

func TestHTTPSubscriptionsNameSomething(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"reader", []string{"table:read", "logic:read", "release:read"}})
	cs := env.mustConnect(t, env.secrets["reader"])
	for _, uri := range []string{"hubsnap://release", "hubsnap://tables/main/users", "hubsnap://tables/%6Dain/users",
		"hubsnap://logics/purchase_item", "hubsnap://logics/admin/users"} {
		if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Errorf("subscribe %s: %v", uri, err)
		}
	}
	for _, uri := range []string{"hubsnap://tables/main/invoices", "hubsnap://tables/x/" + strings.Repeat("y", 2000),
		"hubsnap://logics/nope", "hubsnap://nothing", "file:///etc/passwd", "hubsnap://tables/main/users?x=1",
		"test://watched-resource"} {
		err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri})
		if code := rpcCode(err); code != jsonrpc.CodeInvalidParams {
			t.Errorf("subscribe %.60s: %v (code %d), want -32602 as a read of it gets", uri, err, code)
		}
	}
	if _, n := hubsnapSubscriptions(env.srv); n != 5 {
		t.Errorf("hubsnap tracks %d subscriptions, want the 5 accepted", n)
	}
}

func TestHTTPSubscriptionsPerSessionBound(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"reader", []string{"table:read"}})
	reader := env.secrets["reader"]
	sid := env.initialize(t, reader)
	uris := variants(mcpserver.MaxSubscriptions + 1)
	if len(uris) != mcpserver.MaxSubscriptions+1 {
		t.Fatalf("only %d variants", len(uris))
	}
	for i, uri := range uris[:mcpserver.MaxSubscriptions] {
		if code := subscribeRaw(t, env, reader, sid, uri, i+10); code != 0 {
			t.Fatalf("subscription %d: code %d", i+1, code)
		}
	}
	if code := subscribeRaw(t, env, reader, sid, uris[mcpserver.MaxSubscriptions], 9); code != jsonrpc.CodeInvalidParams {
		t.Errorf("subscription %d: code %d, want -32602", mcpserver.MaxSubscriptions+1, code)
	}
	// Again to one it holds is no new subscription.
	if code := subscribeRaw(t, env, reader, sid, uris[0], 8); code != 0 {
		t.Errorf("subscribing again to a URI held: code %d", code)
	}
	// Another session has its own.
	if code := subscribeRaw(t, env, reader, env.initialize(t, reader), uris[mcpserver.MaxSubscriptions], 7); code != 0 {
		t.Errorf("another session's first subscription: code %d", code)
	}
}

// Rounds of subscribe then DELETE (or eviction, or expiry) leave nothing
// behind: hubsnap's map and go-sdk's are empty once each round's session
// is gone, and the heap does not grow.
func TestHTTPSubscriptionsGoWithTheirSession(t *testing.T) {
	const rounds, each = 4, 300
	env := startHTTP(t, HTTPOptions{MaxSessions: 1}, tokenSpec{"reader", []string{"table:read"}})
	reader := env.secrets["reader"]
	uris := variants(each)
	var heap0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap0)
	for round := range rounds {
		sid := env.initialize(t, reader)
		for i, uri := range uris {
			if code := subscribeRaw(t, env, reader, sid, uri, i+10); code != 0 {
				t.Fatalf("round %d: subscribe: code %d", round, code)
			}
		}
		if n := sdkSubscribedURIs(env.srv.MCP()); n != each {
			t.Fatalf("round %d: go-sdk holds %d URIs, want %d", round, n, each)
		}
		switch round % 2 {
		case 0: // the client ends its session
			if resp, _ := (rawHTTP{method: http.MethodDelete, url: env.url, token: reader, session: sid}).do(t); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE: %s", resp.Status)
			}
		case 1: // a newer session evicts it (MaxSessions 1)
			env.initialize(t, reader)
		}
		eventually(t, patience, "the subscriptions freed", func() bool {
			_, n := hubsnapSubscriptions(env.srv)
			return n == 0 && sdkSubscribedURIs(env.srv.MCP()) == 0
		})
	}
	var heap1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap1)
	t.Logf("%d rounds of %d subscriptions then the session closed: hubsnap and go-sdk hold 0 URIs; heap in use %d KB -> %d KB",
		rounds, each, heap0.HeapInuse>>10, heap1.HeapInuse>>10)
}
