package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth/oauthtest"
)

// sortStrings compares scopes as sets: the provider's order varies.
var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// testResourceServer is a resource guarded by a Verifier, as hubsnap
// serve --http guards /mcp: Require, the RFC 9728 metadata, and a 403
// step-up challenge when the request needs (X-Need) a scope the token
// lacks.
type testResourceServer struct {
	URL string // the resource identifier, http://127.0.0.1:PORT/mcp
	v   *Verifier
	clk *clock
}

func startResourceServer(t *testing.T, issuer string, logs *syncBuffer) *testResourceServer {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	rs := &testResourceServer{URL: "http://" + srv.Listener.Addr().String() + "/mcp"}
	v, err := New(context.Background(), Config{Issuer: issuer, Resource: rs.URL, Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rs.v, rs.clk = v, useClock(v)
	mux := http.NewServeMux()
	mux.Handle(v.MetadataPath(), v.MetadataHandler())
	mux.Handle("/mcp", v.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		need := access.Scope(r.Header.Get("X-Need"))
		if need != "" && !access.Allows(auth.TokenInfoFromContext(r.Context()).Scopes, need) {
			w.Header().Set("WWW-Authenticate", InsufficientScope(v.MetadataURL(), need))
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}), deny401, nil))
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(v.keys.bg.Wait)
	return rs
}

// request is a request to the resource, with a token and a needed scope
// when not empty.
func (rs *testResourceServer) request(t *testing.T, token string, need access.Scope) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rs.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if need != "" {
		req.Header.Set("X-Need", string(need))
	}
	return req
}

// status sends a request to the resource and returns the answer's status
// and challenge.
func (rs *testResourceServer) status(t *testing.T, token string, need access.Scope) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(rs.request(t, token, need))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// TestRealAuthorizationServer runs the authorization code flow with PKCE
// against oidc-provider, with go-sdk's client, and verifies the tokens it
// issues.
func TestRealAuthorizationServer(t *testing.T) {
	p := oauthtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	logs := new(syncBuffer)
	rs := startResourceServer(t, p.Issuer, logs)
	authorize := func(t *testing.T, h *auth.AuthorizationCodeHandler, req *http.Request) string {
		t.Helper()
		token, err := oauthtest.Authorize(ctx, h, req)
		if err != nil {
			t.Fatalf("%v\nprovider log:\n%s", err, p.Log())
		}
		return token
	}

	// A token per algorithm: accepted, with sub and scopes.
	first := map[string]string{}
	for _, alg := range Algorithms {
		t.Run("flow "+alg, func(t *testing.T) {
			token := authorize(t, p.Handler(alg, nil), rs.request(t, "", ""))
			c, err := rs.v.Verify(ctx, token)
			if err != nil {
				t.Fatal(err)
			}
			header, payload := decodeJWT(t, token)
			t.Logf("header %s\nclaims %s", header, payload)
			if c.Subject != oauthtest.Account || c.Algorithm != alg || c.KeyID != p.KeyID(alg) || c.ClientID != oauthtest.ClientID(alg) {
				t.Errorf("claims %+v", c)
			}
			if diff := cmp.Diff(oauthtest.Scopes, c.Scopes, sortStrings); diff != "" {
				t.Errorf("scopes (-want +got):\n%s", diff)
			}
			if code, _ := rs.status(t, token, access.ReleaseRead); code != http.StatusNoContent {
				t.Errorf("request with the token: %d", code)
			}
			first[alg] = token
		})
	}
	if t.Failed() {
		return
	}

	t.Run("step-up on insufficient_scope", func(t *testing.T) {
		asked := 0
		h := p.Handler("ES256", func(discovered []string) []string {
			if asked++; asked == 1 {
				return []string{string(access.TableRead)} // ask for less at first
			}
			return discovered
		})
		token := authorize(t, h, rs.request(t, "", ""))
		if code, _ := rs.status(t, token, access.TableRead); code != http.StatusNoContent {
			t.Fatalf("table:read with table:read: %d", code)
		}
		code, challenge := rs.status(t, token, access.LogicRead)
		if code != http.StatusForbidden || challenge != `Bearer error="insufficient_scope", scope="logic:read", resource_metadata="`+rs.v.MetadataURL()+`"` {
			t.Fatalf("logic:read with table:read: %d %s", code, challenge)
		}
		token = authorize(t, h, rs.request(t, token, access.LogicRead))
		c, err := rs.v.Verify(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"table:read", "logic:read"}, c.Scopes, sortStrings); diff != "" {
			t.Errorf("scopes after step-up (-want +got):\n%s", diff)
		}
		if code, _ := rs.status(t, token, access.LogicRead); code != http.StatusNoContent {
			t.Errorf("logic:read after step-up: %d", code)
		}
	})

	t.Run("token for another resource", func(t *testing.T) {
		other := startResourceServer(t, p.Issuer, new(syncBuffer))
		token := authorize(t, p.Handler("ES256", nil), other.request(t, "", ""))
		if _, err := other.v.Verify(ctx, token); err != nil {
			t.Fatalf("at its own resource: %v", err)
		}
		_, err := rs.v.Verify(ctx, token)
		if got := ReasonOf(err); got != ReasonWrongAudience {
			t.Fatalf("reason = %q (%v), want %q", got, err, ReasonWrongAudience)
		}
		code, challenge := rs.status(t, token, "")
		want := `Bearer resource_metadata="` + rs.v.MetadataURL() + `", error="invalid_token", error_description="the token is for another resource"`
		if code != http.StatusUnauthorized || challenge != want {
			t.Errorf("got %d %s\nwant 401 %s", code, challenge, want)
		}
	})

	t.Run("key rotation", func(t *testing.T) {
		p.Rotate()
		rs.clk.add(RefetchInterval) // the last fetch was at start
		for _, alg := range Algorithms {
			token := authorize(t, p.Handler(alg, nil), rs.request(t, "", ""))
			c, err := rs.v.Verify(ctx, token)
			if err != nil {
				t.Fatalf("%s, new key: %v", alg, err)
			}
			if c.KeyID != p.KeyID(alg) || c.KeyID == "g1-"+alg {
				t.Errorf("kid %q, want %q", c.KeyID, p.KeyID(alg))
			}
			if _, err := rs.v.Verify(ctx, first[alg]); err != nil {
				t.Errorf("%s, a token of the old key (still published): %v", alg, err)
			}
		}
		if !logs.contains("keys changed", "g2-ES256") {
			t.Errorf("the rotation was not logged:\n%s", logs)
		}
	})

	t.Run("issuer down", func(t *testing.T) {
		// (The tokens last 5 minutes: the clock cannot reach KeyMaxAge
		// here; TestCachedKeysServeWhenTheIssuerIsDown does.)
		p.Stop()
		rs.clk.add(RefetchInterval)
		// A token naming a kid the cache lacks makes it try the issuer.
		forger := &testIssuer{tb: t, URL: p.Issuer}
		claims := forger.claims(rs.clk.now())
		claims["aud"] = rs.URL
		_, err := rs.v.Verify(ctx, forger.sign(forger.newKey("ES256", "g9-ES256"), claims, nil))
		if got := ReasonOf(err); got != ReasonUnknownKey {
			t.Errorf("reason = %q (%v), want %q", got, err, ReasonUnknownKey)
		}
		if !logs.contains("could not be fetched again; the cached keys keep serving", "connection refused") {
			t.Errorf("the failed fetch was not logged:\n%s", logs)
		}
		for alg, token := range first {
			if _, err := rs.v.Verify(ctx, token); err != nil {
				t.Errorf("%s: %v", alg, err)
			}
		}
		if code, _ := rs.status(t, first["EdDSA"], access.TableRead); code != http.StatusNoContent {
			t.Errorf("request with a cached key: %d", code)
		}
	})
}

// decodeJWT returns the header and claims of a JWT, as JSON.
func decodeJWT(t *testing.T, token string) (header, claims string) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %d parts", len(parts))
	}
	h, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	c, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	return string(h), string(c)
}
