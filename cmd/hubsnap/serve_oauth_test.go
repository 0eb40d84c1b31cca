package main

// serve --http --auth-issuer (docs/team.md) against a real authorization
// server: npm's oidc-provider (mcpserver/transport/oauth/oauthtest), and go-sdk's
// own client doing the client side of the authorization code flow with
// PKCE (auth.AuthorizationCodeHandler) with a headless browser.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth/oauthtest"
)

// transcript records, in order, the HTTP exchanges of a client: the MCP
// requests, the discovery, the browser's steps and the token exchange.
// Tokens and codes are never recorded; a token response shows the access
// token's claims.
type transcript struct {
	mu    sync.Mutex
	lines []string
}

func (tr *transcript) add(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lines = append(tr.lines, fmt.Sprintf(format, args...))
}

func (tr *transcript) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return strings.Join(tr.lines, "\n")
}

// client returns an HTTP client that records into tr, labelled who.
func (tr *transcript) client(who string) *http.Client {
	return &http.Client{Transport: &recorder{tr: tr, who: who, next: http.DefaultTransport}}
}

type recorder struct {
	tr   *transcript
	who  string
	next http.RoundTripper
}

func (rt *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	what := r.Method + " " + r.URL.Scheme + "://" + r.URL.Host + r.URL.Path
	if r.Body != nil && r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		what += " " + describeRequest(r, body)
	}
	if h := r.Header.Get("Authorization"); h != "" {
		what += " [" + strings.SplitN(h, " ", 2)[0] + " token]"
	}
	rt.tr.add("%s → %s", rt.who, what)
	resp, err := rt.next.RoundTrip(r)
	if err != nil {
		rt.tr.add("%s ← error %v", rt.who, err)
		return resp, err
	}
	got := resp.Status
	if wa := resp.Header.Get("WWW-Authenticate"); wa != "" {
		got += " WWW-Authenticate: " + wa
	}
	if strings.HasSuffix(r.URL.Path, "/token") && resp.StatusCode == http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		got += " access token claims " + accessTokenClaims(body)
	}
	if resp.StatusCode == http.StatusForbidden && r.URL.Path == "/mcp" {
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		got += " body " + strings.TrimSpace(string(body))
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		got += " Location: " + redact(loc)
	}
	rt.tr.add("%s ← %s", rt.who, got)
	return resp, nil
}

// describeRequest names what a POST asks: the JSON-RPC method (and tool)
// of an MCP request, the form fields (not their secret values) of a token
// request.
func describeRequest(r *http.Request, body []byte) string {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		form, _ := url.ParseQuery(string(body))
		var keys []string
		for k := range form {
			switch k {
			case "grant_type", "resource", "client_id", "redirect_uri":
				keys = append(keys, k+"="+form.Get(k))
			default:
				keys = append(keys, k+"=…")
			}
		}
		slices.Sort(keys)
		return strings.Join(keys, " ")
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal(body, &m)
	if m.Params.Name != "" {
		return m.Method + " " + m.Params.Name
	}
	return m.Method
}

// accessTokenClaims shows the claims of the access token in a token
// response (its payload, not the token).
func accessTokenClaims(body []byte) string {
	var tr struct {
		AccessToken string `json:"access_token"`
		Scope       string `json:"scope"`
	}
	json.Unmarshal(body, &tr)
	parts := strings.Split(tr.AccessToken, ".")
	if len(parts) != 3 {
		return "(not a JWT)"
	}
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	json.Unmarshal(payload, &c)
	keep := map[string]any{}
	for _, k := range []string{"iss", "sub", "aud", "scope", "client_id"} {
		keep[k] = c[k]
	}
	b, _ := json.Marshal(keep)
	return string(header) + " " + string(b)
}

// redact drops the values of code and state from a URL.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	q := u.Query()
	for _, k := range []string{"code", "state", "code_challenge"} {
		if q.Has(k) {
			q.Set(k, "…")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// TestServeOAuthSignIn: go-sdk's client meets a 401, discovers hubsnap's
// metadata and the provider from it, signs the user in (code flow with
// PKCE, the user granting table:read only), calls tools, and gets a 403
// insufficient_scope for logic_list; once the user grants logic:read too
// (step-up), logic_list answers. A user who refuses gets the 403 as the
// call's error and keeps the session.
func TestServeOAuthSignIn(t *testing.T) {
	t.Parallel()
	p := oauthtest.Start(t)
	c, _ := servedCLI(t)
	s := startHTTPServe(t, c, "127.0.0.1:0", "--auth-issuer", p.Issuer)
	for _, tc := range []struct {
		stepUp  bool
		version string // "" for go-sdk's newest, 2026-07-28
	}{{true, ""}, {false, ""}, {true, "2025-11-25"}} {
		stepUp := tc.stepUp
		tr := &transcript{}
		granted := []string{"table:read"}
		filter := func(discovered []string) []string {
			// The user grants what is asked within granted; agreeing to step
			// up adds what the 403 asks for.
			out := slices.DeleteFunc(slices.Clone(discovered), func(s string) bool { return !slices.Contains(granted, s) })
			tr.add("user  : asked for %v, grants %v", discovered, out)
			if stepUp && !slices.Contains(granted, "logic:read") {
				granted = append(granted, "logic:read")
			}
			return out
		}
		fetch := oauthtest.Fetcher(oauthtest.RedirectURL)
		h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
			PreregisteredClient: &oauthex.ClientCredentials{ClientID: oauthtest.ClientID("ES256"), Issuer: p.Issuer},
			RedirectURL:         oauthtest.RedirectURL,
			AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
				tr.add("browser → GET %s", redact(args.URL))
				res, err := fetch(ctx, args)
				if err == nil {
					tr.add("browser ← redirected to %s?code=…&state=…", oauthtest.RedirectURL)
				}
				return res, err
			},
			ScopeFilter: filter,
			Client:      tr.client("client"),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-oauth-e2e", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: tr.client("client"), OAuthHandler: h},
			&mcp.ClientSessionOptions{ProtocolVersion: tc.version})
		if err != nil {
			cancel()
			t.Fatalf("connect with sign-in: %v\ntranscript:\n%s\nprovider: %s", err, tr, p.Log())
		}
		tables := callTool(ctx, cs, "schema_list_tables")
		logics := callTool(ctx, cs, "logic_list")
		release := callTool(ctx, cs, "release_info")
		tr.add("result (protocol %s): schema_list_tables %s; logic_list %s; release_info %s",
			cs.InitializeResult().ProtocolVersion, tables, logics, release)
		cs.Close()
		cancel()
		t.Logf("transcript (step-up %v, protocol %q):\n%s", stepUp, tc.version, tr)

		text := tr.String()
		for _, want := range []string{
			`401 Unauthorized WWW-Authenticate: Bearer resource_metadata="` + strings.TrimSuffix(s.url, "/mcp") +
				`/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
			"GET " + strings.TrimSuffix(s.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp",
			"code_challenge_method=S256", "resource=" + url.QueryEscape(s.url),
			`403 Forbidden WWW-Authenticate: Bearer error="insufficient_scope", scope="logic:read"`,
			`"scope":"table:read"`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the transcript (step-up %v) lacks %q", stepUp, want)
			}
		}
		if !strings.HasPrefix(tables, "ok") || strings.HasPrefix(release, "ok") {
			t.Errorf("schema_list_tables %s, release_info %s; want ok, then refused (no release:read)", tables, release)
		}
		if stepUp && !strings.HasPrefix(logics, "ok") {
			t.Errorf("logic_list after the step-up: %s, want ok", logics)
		}
		if !stepUp && !strings.Contains(logics, "-32001") {
			t.Errorf("logic_list without the step-up: %s, want the 403's JSON-RPC error -32001", logics)
		}
	}
	code, _ := s.stop(t)
	stderr := s.stderr.String()
	if code != exitOK {
		t.Errorf("exit %d after SIGTERM; stderr: %s", code, stderr)
	}
	var subs []string
	for _, l := range requestLog(stderr) {
		if l["sub"] != "" {
			subs = append(subs, l["sub"])
		}
		if l["token"] != "" {
			t.Errorf("a request line names a token: %v", l)
		}
	}
	if len(subs) == 0 || slices.IndexFunc(subs, func(s string) bool { return s != oauthtest.Account }) >= 0 {
		t.Errorf("the request lines name subjects %q, want %s each", subs, oauthtest.Account)
	}
	t.Logf("serve's log:\n%s", grepLines(stderr, "msg="))
}

// callTool calls a tool without arguments and says what came back: ok, a
// tool error, or the error.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string) string {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		return fmt.Sprintf("error %d: %s", rpc.Code, rpc.Message)
	case err != nil:
		return "error: " + err.Error()
	case res.IsError:
		return "tool error: " + toolText(res)
	}
	return fmt.Sprintf("ok (%d bytes)", len(toolText(res)))
}
