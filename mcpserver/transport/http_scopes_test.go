package transport

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store"
)

// Scopes over HTTP (docs/team.md): each token reads only what its scopes
// cover, through tools (a FORBIDDEN tool error), resources and
// completions (JSON-RPC error -32001), and schema_search finds only the
// kinds it may read.

// scopeCases are the scope patterns a token can have and what each covers.
var scopeCases = []struct {
	scope                 string
	table, logic, release bool
}{
	{"table:read", true, false, false},
	{"logic:read", false, true, false},
	{"release:read", false, false, true},
	{"table:*", true, false, false},
	{"*:read", true, true, true},
	{"*", true, true, true},
	{"logic:*", false, true, false},
}

// scopeTokenName names the token of a scope pattern.
func scopeTokenName(scope string) string {
	return "tok-" + strings.NewReplacer(":", "-", "*", "all").Replace(scope)
}

// scopeTokens are a token for each of scopeCases.
func scopeTokens() []tokenSpec {
	var specs []tokenSpec
	for _, c := range scopeCases {
		specs = append(specs, tokenSpec{scopeTokenName(c.scope), []string{c.scope}})
	}
	return specs
}

// rpcCode is the JSON-RPC error code of err, or 0.
func rpcCode(err error) int64 {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc.Code
	}
	return 0
}

func TestHTTPScopes(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, scopeTokens()...)
	for _, sc := range scopeCases {
		t.Run(sc.scope, func(t *testing.T) {
			cs := env.mustConnect(t, env.secrets[scopeTokenName(sc.scope)])

			// Tools.
			for _, tc := range []struct {
				tool    string
				args    map[string]any
				allowed bool
				need    string // named in the FORBIDDEN message
			}{
				{"schema_list_tables", map[string]any{}, sc.table, "table:read"},
				{"schema_get_table", map[string]any{"table": "main.users"}, sc.table, "table:read"},
				{"logic_list", map[string]any{}, sc.logic, "logic:read"},
				{"logic_get", map[string]any{"name": "purchase_item"}, sc.logic, "logic:read"},
				{"release_info", map[string]any{}, sc.release, "release:read"},
				{"schema_search", map[string]any{"query": "user"}, sc.table || sc.logic, "table:read or logic:read"},
				{"schema_join_path", map[string]any{"from": "posts", "to": "items"}, sc.table, "table:read"},
				{"schema_diff", map[string]any{"from": "rel_42"}, sc.release, "release:read"},
				{"release_check", map[string]any{}, sc.release, "release:read"},
			} {
				res := call(t, cs, tc.tool, tc.args)
				if tc.allowed {
					if res.IsError {
						t.Errorf("%s: want allowed, got %s", tc.tool, text(t, res))
					} else if res.StructuredContent == nil {
						t.Errorf("%s: no structured content", tc.tool)
					}
					continue
				}
				msg := wantCode(t, res, store.Forbidden)
				if !strings.Contains(msg, tc.need) {
					t.Errorf("%s: FORBIDDEN message %q does not name %s", tc.tool, msg, tc.need)
				}
				if !strings.HasPrefix(msg, tc.tool+": ") {
					t.Errorf("%s: FORBIDDEN message %q does not start with the tool", tc.tool, msg)
				}
				if !strings.Contains(msg, sc.scope) {
					t.Errorf("%s: FORBIDDEN message %q does not name the token's scope %s", tc.tool, msg, sc.scope)
				}
			}

			// Resources.
			for _, tc := range []struct {
				uri     string
				allowed bool
				need    string
			}{
				{"hubsnap://release", sc.release, "release:read"},
				{"hubsnap://tables/main/users", sc.table, "table:read"},
				{"hubsnap://tables/analytics/users", sc.table, "table:read"},
				{"hubsnap://logics/purchase_item", sc.logic, "logic:read"},
				{"hubsnap://logics/admin%2Fusers", sc.logic, "logic:read"},
				{"hubsnap://logics/admin/users", sc.logic, "logic:read"},
			} {
				got, err := readResource(t, cs, tc.uri)
				if tc.allowed {
					if err != nil || !json.Valid([]byte(got)) {
						t.Errorf("read %s: %v (%q), want allowed", tc.uri, err, got)
					}
					continue
				}
				if code := rpcCode(err); code != mcpserver.CodeForbidden {
					t.Errorf("read %s: %v (%q), want JSON-RPC error %d", tc.uri, err, got, mcpserver.CodeForbidden)
				} else if !strings.Contains(err.Error(), tc.need) {
					t.Errorf("read %s: %v does not name %s", tc.uri, err, tc.need)
				}
			}
			// An unknown resource is not found (-32602), whatever the scopes.
			if _, err := readResource(t, cs, "hubsnap://nothing"); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("read hubsnap://nothing: %v, want -32602", err)
			}

			// Subscriptions.
			err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "hubsnap://release"})
			if sc.release && err != nil {
				t.Errorf("subscribe hubsnap://release: %v, want allowed", err)
			} else if !sc.release && rpcCode(err) != mcpserver.CodeForbidden {
				t.Errorf("subscribe hubsnap://release: %v, want %d", err, mcpserver.CodeForbidden)
			}

			// Completions.
			for _, tc := range []struct {
				uri, arg, value string
				allowed         bool
				want            []string
			}{
				{"hubsnap://tables/{connection}/{table}", "table", "p", sc.table, []string{"posts", "purchases"}},
				{"hubsnap://tables/{connection}/{table}", "connection", "", sc.table, []string{"analytics", "main"}},
				{"hubsnap://logics/{name}", "name", "a", sc.logic, []string{"admin/users"}},
			} {
				res, err := cs.Complete(t.Context(), &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: tc.uri},
					Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.value}})
				if tc.allowed {
					if err != nil {
						t.Errorf("complete %s %s: %v, want allowed", tc.uri, tc.arg, err)
					} else if !slices.Equal(res.Completion.Values, tc.want) {
						t.Errorf("complete %s %s=%q = %v, want %v", tc.uri, tc.arg, tc.value, res.Completion.Values, tc.want)
					}
					continue
				}
				if rpcCode(err) != mcpserver.CodeForbidden {
					t.Errorf("complete %s %s: %v, want JSON-RPC error %d", tc.uri, tc.arg, err, mcpserver.CodeForbidden)
				}
			}

			// Lists show everything, whatever the scopes.
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil || len(tools.Tools) != len(toolNames) {
				t.Errorf("tools/list: %v, %d tools, want %d", err, len(tools.Tools), len(toolNames))
			}
			resources, err := cs.ListResources(t.Context(), nil)
			if err != nil || len(resources.Resources) != 2 {
				t.Errorf("resources/list: %v, %+v", err, resources)
			}
			templates, err := cs.ListResourceTemplates(t.Context(), nil)
			if err != nil || len(templates.ResourceTemplates) != 3 {
				t.Errorf("resources/templates/list: %v, %+v", err, templates)
			}
		})
	}
}

// searchHits calls schema_search and returns its output; a tool error
// fails the test.
func searchHits(tb testing.TB, cs *mcp.ClientSession, args map[string]any) mcpserver.SearchOutput {
	tb.Helper()
	return success[mcpserver.SearchOutput](tb, call(tb, cs, "schema_search", args))
}

// hitKinds are the kinds of hits, sorted, without duplicates.
func hitKinds(out mcpserver.SearchOutput) []string {
	var kinds []string
	for _, h := range out.Hits {
		kinds = append(kinds, h.Kind)
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// schema_search finds only the kinds the token may read, as if the other
// kinds were never there: a token with table:read finds what an
// unrestricted search of tables and columns finds, limit and more
// included.
func TestHTTPSearchHitsFollowScopes(t *testing.T) {
	env := startHTTP(t, HTTPOptions{},
		tokenSpec{"all", []string{"*"}}, tokenSpec{"tables", []string{"table:read"}},
		tokenSpec{"logics", []string{"logic:read"}}, tokenSpec{"both", []string{"table:read", "logic:read"}},
		tokenSpec{"release", []string{"release:read"}})
	all := env.mustConnect(t, env.secrets["all"])
	tables := env.mustConnect(t, env.secrets["tables"])
	logics := env.mustConnect(t, env.secrets["logics"])
	both := env.mustConnect(t, env.secrets["both"])

	// "user" matches tables, columns and logics (admin/users, the user_id
	// params) in the fixture.
	const query = "user"
	everything := searchHits(t, all, map[string]any{"query": query, "limit": 100})
	if got := hitKinds(everything); !slices.Equal(got, []string{"column", "logic", "table"}) {
		t.Fatalf("the fixture's %q hits are of kinds %v, want column, logic and table", query, got)
	}

	t.Run("table:read finds no logics", func(t *testing.T) {
		got := searchHits(t, tables, map[string]any{"query": query, "limit": 100})
		if kinds := hitKinds(got); !slices.Equal(kinds, []string{"column", "table"}) {
			t.Errorf("kinds = %v, want column and table", kinds)
		}
		want := searchHits(t, all, map[string]any{"query": query, "limit": 100, "kinds": []string{"table", "column"}})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("table:read search differs from * with kinds table,column (-want +got):\n%s", diff)
		}
		// The default limit counts only what the token may see.
		got = searchHits(t, tables, map[string]any{"query": query})
		want = searchHits(t, all, map[string]any{"query": query, "kinds": []string{"table", "column"}})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("default limit (-want +got):\n%s", diff)
		}
	})

	t.Run("logic:read finds only logics", func(t *testing.T) {
		got := searchHits(t, logics, map[string]any{"query": query, "limit": 100})
		if kinds := hitKinds(got); !slices.Equal(kinds, []string{"logic"}) {
			t.Errorf("kinds = %v, want logic", kinds)
		}
		want := searchHits(t, all, map[string]any{"query": query, "limit": 100, "kinds": []string{"logic"}})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("logic:read search differs from * with kinds logic (-want +got):\n%s", diff)
		}
		// more is about the logics alone.
		n := len(want.Hits)
		if n < 2 {
			t.Fatalf("only %d logic hits for %q; the test needs two", n, query)
		}
		if got := searchHits(t, logics, map[string]any{"query": query, "limit": n}); got.More || len(got.Hits) != n {
			t.Errorf("limit %d: %d hits, more=%v; want %d, false", n, len(got.Hits), got.More, n)
		}
		if got := searchHits(t, logics, map[string]any{"query": query, "limit": n - 1}); !got.More || len(got.Hits) != n-1 {
			t.Errorf("limit %d: %d hits, more=%v; want %d, true", n-1, len(got.Hits), got.More, n-1)
		}
	})

	t.Run("both scopes find everything", func(t *testing.T) {
		got := searchHits(t, both, map[string]any{"query": query, "limit": 100})
		if diff := cmp.Diff(everything, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("explicit kinds", func(t *testing.T) {
		// Only kinds the token may not read: FORBIDDEN, naming the scope.
		msg := wantCode(t, call(t, tables, "schema_search", map[string]any{"query": query, "kinds": []string{"logic"}}), store.Forbidden)
		if !strings.Contains(msg, "logic:read") {
			t.Errorf("kinds [logic] with table:read: message %q does not name logic:read", msg)
		}
		msg = wantCode(t, call(t, logics, "schema_search", map[string]any{"query": query, "kinds": []string{"table", "column"}}), store.Forbidden)
		if !strings.Contains(msg, "table:read") {
			t.Errorf("kinds [table column] with logic:read: message %q does not name table:read", msg)
		}
		// Some readable kinds: narrowed to those.
		got := searchHits(t, tables, map[string]any{"query": query, "limit": 100, "kinds": []string{"table", "logic"}})
		if kinds := hitKinds(got); !slices.Equal(kinds, []string{"table"}) {
			t.Errorf("kinds [table logic] with table:read found %v, want table", kinds)
		}
		got = searchHits(t, logics, map[string]any{"query": query, "limit": 100, "kinds": []string{"column", "logic"}})
		if kinds := hitKinds(got); !slices.Equal(kinds, []string{"logic"}) {
			t.Errorf("kinds [column logic] with logic:read found %v, want logic", kinds)
		}
	})

	t.Run("neither scope", func(t *testing.T) {
		cs := env.mustConnect(t, env.secrets["release"])
		msg := wantCode(t, call(t, cs, "schema_search", map[string]any{"query": query}), store.Forbidden)
		if !strings.Contains(msg, "table:read or logic:read") {
			t.Errorf("message %q", msg)
		}
	})
}

// errorCode returns the code of a tool error result, "" for a success,
// without failing (for goroutines).
func errorCode(res *mcp.CallToolResult) string {
	if !res.IsError {
		return ""
	}
	if len(res.Content) != 1 {
		return "?"
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "?"
	}
	var doc errorDoc
	if json.Unmarshal([]byte(tc.Text), &doc) != nil {
		return "?"
	}
	return doc.Error.Code
}

// Sessions of different tokens, used at once, each get their own scopes'
// answers.
func TestHTTPConcurrentSessionsKeepTheirScopes(t *testing.T) {
	env := startHTTP(t, HTTPOptions{},
		tokenSpec{"tables", []string{"table:read"}}, tokenSpec{"logics", []string{"logic:read"}},
		tokenSpec{"all", []string{"*"}})
	type client struct {
		name  string
		cs    *mcp.ClientSession
		table bool // may read tables (else logics)
		logic bool
	}
	clients := []client{
		{"tables", env.mustConnect(t, env.secrets["tables"]), true, false},
		{"logics", env.mustConnect(t, env.secrets["logics"]), false, true},
		{"all", env.mustConnect(t, env.secrets["all"]), true, true},
	}
	calls := []struct {
		tool  string
		args  map[string]any
		table bool // needs table:read (else logic:read)
	}{
		{"schema_list_tables", map[string]any{}, true},
		{"schema_get_table", map[string]any{"table": "main.users"}, true},
		{"logic_list", map[string]any{}, false},
		{"logic_get", map[string]any{"name": "purchase_item"}, false},
		{"schema_search", map[string]any{"query": "user", "limit": 100}, true},
	}
	const perClient = 50
	var wg sync.WaitGroup
	for _, c := range clients {
		for i := range perClient {
			wg.Go(func() {
				k := calls[i%len(calls)]
				ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
				defer cancel()
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: k.tool, Arguments: k.args})
				if err != nil {
					t.Errorf("%s #%d %s: %v", c.name, i, k.tool, err)
					return
				}
				code := errorCode(res)
				if k.tool == "schema_search" {
					if code != "" {
						t.Errorf("%s #%d schema_search: %s", c.name, i, code)
						return
					}
					var out mcpserver.SearchOutput
					b, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(b, &out); err != nil {
						t.Errorf("%s #%d schema_search: %v", c.name, i, err)
						return
					}
					for _, h := range out.Hits {
						if (h.Kind == "logic" && !c.logic) || (h.Kind != "logic" && !c.table) {
							t.Errorf("%s #%d schema_search found a %s hit", c.name, i, h.Kind)
							return
						}
					}
					return
				}
				allowed := (k.table && c.table) || (!k.table && c.logic)
				switch {
				case allowed && code != "":
					t.Errorf("%s #%d %s: %s, want allowed", c.name, i, k.tool, code)
				case !allowed && code != string(store.Forbidden):
					t.Errorf("%s #%d %s: %q, want FORBIDDEN", c.name, i, k.tool, code)
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// The sessions survive it all.
	for _, c := range clients {
		if _, err := callCtx(c.cs, "schema_search", map[string]any{"query": "posts"}); err != nil {
			t.Errorf("%s after the burst: %v", c.name, err)
		}
	}
	eventually(t, patience, "one session per client", func() bool { return sessionCount(env.srv) == len(clients) })
}
