package transport

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth"
	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth/oauthtest"
)

// OAuth 2.1 (docs/team.md) through HTTPHandler: an issuer in the test
// (oauthtest.Issuer) signs the tokens; the sign-in flow against a real
// authorization server is in cmd/hubsnap's serve_oauth_test.go.

// oauthEnv is the shop fixture served with HTTPOptions.OAuth.
type oauthEnv struct {
	*httpEnv
	issuer *oauthtest.Issuer
	meta   string // the metadata URL challenges name
}

func startOAuth(tb testing.TB, stateless bool) *oauthEnv {
	tb.Helper()
	st := openStore(tb)
	putCurrent(tb, st, shopSnapshot(tb))
	srv := newServer(tb, st)
	is := oauthtest.NewIssuer(tb)
	ts := httptest.NewUnstartedServer(nil)
	env := &httpEnv{srv: srv, ts: ts, base: "http://" + ts.Listener.Addr().String(), logs: &lockedBuffer{}}
	env.url = env.base + mcpPath
	v, err := oauth.New(context.Background(), oauth.Config{Issuer: is.URL, Resource: env.url})
	if err != nil {
		tb.Fatal(err)
	}
	ts.Config.Handler = HTTPHandler(srv, HTTPOptions{OAuth: v, Stateless: stateless,
		Log: slog.New(slog.NewTextHandler(env.logs, nil))})
	ts.Start()
	tb.Cleanup(func() {
		closeSessions(srv)
		ts.CloseClientConnections()
		ts.Close()
	})
	return &oauthEnv{httpEnv: env, issuer: is, meta: v.MetadataURL()}
}

// challengeOf fails unless resp has status and a Bearer challenge with
// each of parts.
func challengeOf(tb testing.TB, what string, resp *http.Response, status int, parts ...string) {
	tb.Helper()
	wa := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != status || !strings.HasPrefix(wa, "Bearer ") || !containsAll(wa, parts...) {
		tb.Errorf("%s: %s, WWW-Authenticate %q; want %d with %q", what, resp.Status, wa, status, parts)
	}
}

// With OAuth, every request needs a valid access token (401 with the
// challenge of docs/team.md otherwise, on loopback too); a valid one calls tools in
// both eras; a request outside its scopes gets 403 with the
// insufficient_scope challenge naming the scope, and a JSON-RPC error
// body that go-sdk's client reads as that call's failure.
func TestHTTPOAuth(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "stateless"}[stateless], func(t *testing.T) {
			env := startOAuth(t, stateless)
			rm := `resource_metadata="` + env.meta + `"`
			resp, _ := rawHTTP{url: env.url, body: initializeBody}.do(t)
			challengeOf(t, "no token", resp, http.StatusUnauthorized, rm, `error="invalid_token"`)

			resp, body := rawHTTP{method: http.MethodGet, url: env.meta}.do(t)
			var md struct {
				Resource    string   `json:"resource"`
				AuthServers []string `json:"authorization_servers"`
			}
			if json.Unmarshal([]byte(body), &md) != nil || md.Resource != env.url || len(md.AuthServers) != 1 ||
				md.AuthServers[0] != env.issuer.URL {
				t.Errorf("metadata: %s %s; want resource %s and the issuer", resp.Status, body, env.url)
			}

			tables := env.issuer.Token(env.url, "table:read")
			for _, version := range []string{sessionEra, ""} {
				cs, _, err := connectHTTPVersion(t, env.url, tables, version)
				if err != nil {
					t.Fatalf("connect (%q) with a table:read token: %v", version, err)
				}
				call(t, cs, "schema_list_tables", map[string]any{})
				// Outside the scopes: the call fails (403), the session lives on.
				_, err = callCtx(cs, "logic_list", map[string]any{})
				if err == nil || rpcCode(err) != mcpserver.CodeForbidden || !strings.Contains(err.Error(), "logic:read") {
					t.Errorf("logic_list (%q) with table:read: %v, want -32001 naming logic:read", version, err)
				}
				call(t, cs, "schema_get_table", map[string]any{"table": "posts"})
			}

			for _, tc := range []struct {
				what, body, need string
			}{
				{"logic_list", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"logic_list","arguments":{}}}`, "logic:read"},
				{"schema_search for logics", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"schema_search","arguments":{"query":"x","kinds":["logic"]}}}`, "logic:read"},
				{"release resource", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"hubsnap://release"}}`, "release:read"},
				{"logic completion", `{"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"hubsnap://logics/{name}"},"argument":{"name":"name","value":"a"}}}`, "logic:read"},
				{"listen to a logic", `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["hubsnap://logics/purchase_item"]}}}`, "logic:read"},
			} {
				resp, body := rawHTTP{url: env.url, token: tables, body: tc.body}.do(t)
				challengeOf(t, tc.what, resp, http.StatusForbidden, `error="insufficient_scope"`, `scope="`+tc.need+`"`, rm)
				var e struct {
					ID    int `json:"id"`
					Error struct {
						Code int64 `json:"code"`
						Data struct {
							Scope string `json:"scope"`
						} `json:"data"`
					} `json:"error"`
				}
				if json.Unmarshal([]byte(body), &e) != nil || e.ID != 7 || e.Error.Code != mcpserver.CodeForbidden || e.Error.Data.Scope != tc.need {
					t.Errorf("%s: body %s, want a JSON-RPC error -32001 for id 7 naming %s", tc.what, body, tc.need)
				}
			}

			logs := env.logs.String()
			for _, want := range [][]string{
				{"status=401", "denied=\"no token\""},
				{"rpc=tools/call", "tool=schema_list_tables", "status=200", "result=ok", "sub=alice"},
				{"tool=logic_list", "status=403", `denied="insufficient scope: logic:read"`, "sub=alice"},
			} {
				found := false
				for line := range strings.Lines(logs) {
					found = found || containsAll(line, want...)
				}
				if !found {
					t.Errorf("no log line with %q:\n%s", want, logs)
				}
			}
			if strings.Contains(logs, tables) || strings.Contains(logs, "token=") {
				t.Errorf("the log names a token:\n%s", logs)
			}
		})
	}
}

// With OAuth, a token whose scopes cover a tool reaches MCP with them: the
// MCP layer still narrows schema_search to the kinds it may read.
func TestHTTPOAuthScopesReachTools(t *testing.T) {
	env := startOAuth(t, true)
	hc, _ := bearerClient(t, env.issuer.Token(env.url, "logic:read"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: env.url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := success[mcpserver.SearchOutput](t, call(t, cs, "schema_search", map[string]any{"query": "purchase"}))
	for _, h := range out.Hits {
		if h.Kind != "logic" {
			t.Errorf("schema_search with logic:read found a %s: %+v", h.Kind, h)
		}
	}
	if len(out.Hits) == 0 {
		t.Error("schema_search with logic:read found nothing")
	}
}
