package main

// serve --http --auth-issuer refusing tokens (docs/team.md), end to end: an
// issuer in the test (oauthtest.Issuer) signs what a real one would not.

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth/oauthtest"
)

// TestServeOAuthRejections: every bad token is a 401 with the challenge of
// docs/team.md and a reason; the log line says the reason and nothing else of
// the token. A token signed with a key the issuer publishes only later is
// refused, then accepted once the key set is fetched again (at most every
// 10 s): a key rotation needs no restart.
func TestServeOAuthRejections(t *testing.T) {
	t.Parallel()
	is := oauthtest.NewIssuer(t)
	c, _ := servedCLI(t)
	s := startHTTPServe(t, c, "127.0.0.1:0", "--auth-issuer", is.URL, "--stateless")
	meta := strings.TrimSuffix(s.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	k1 := is.Key("k1")
	claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		cl := is.Claims(s.url, "table:read")
		edit(cl)
		return cl
	}
	now := time.Now()
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, is.Claims(s.url, "*")).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	// The classic confusion: HS256 with the public key (PEM) as the secret.
	der, err := x509.MarshalPKIXPublicKey(k1.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, is.Claims(s.url, "*"))
	hs.Header["kid"], hs.Header["typ"] = "k1", "at+jwt"
	hmac, err := hs.SignedString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	forged := is.NewKey("ES256", "k1") // k1's name, another key
	k2 := is.NewKey("RS256", "k2")     // published below
	rotated := is.Sign(k2, is.Claims(s.url, "table:read"), nil)

	cases := []struct {
		what, token, reason, description string
	}{
		{"no token", "", "no token", "no bearer token"},
		{"not a JWT", "hubsnap_AAAA", "malformed", "malformed access token"},
		{"expired", is.Sign(k1, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-2 * time.Minute).Unix() }), nil),
			"expired", "the token expired"},
		{"not yet valid", is.Sign(k1, claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(2 * time.Minute).Unix() }), nil),
			"not yet valid", "the token is not yet valid"},
		{"wrong issuer", is.Sign(k1, claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" }), nil),
			"wrong issuer", "issued by another issuer"},
		{"wrong audience", is.Sign(k1, claims(func(c jwt.MapClaims) { c["aud"] = "https://api.example.com" }), nil),
			"wrong audience", "the token is for another resource"},
		{"another resource", is.Sign(k1, claims(func(c jwt.MapClaims) { c["aud"] = "http://127.0.0.1:1/mcp" }), nil),
			"wrong audience", "the token is for another resource"},
		{"no audience", is.Sign(k1, claims(func(c jwt.MapClaims) { delete(c, "aud") }), nil),
			"wrong audience", "the token is for another resource"},
		{"alg none", none, "unsupported algorithm", "unsupported signing algorithm"},
		{"HS256 with the public key", hmac, "unsupported algorithm", "unsupported signing algorithm"},
		{"an ID token's typ", is.Sign(k1, claims(func(jwt.MapClaims) {}), map[string]any{"typ": "id_token+jwt"}),
			"bad typ", "not an access token (typ)"},
		{"bad signature", is.Sign(forged, claims(func(jwt.MapClaims) {}), nil), "bad signature", "bad signature"},
		{"unknown kid", rotated, "unknown key", "signed with an unknown key"},
	}
	for _, tc := range cases {
		r := rawPost(t, s.url, tc.token, "", initializeLine)
		wa := r.header.Get("WWW-Authenticate")
		want := []string{`Bearer resource_metadata="` + meta + `"`, `error="invalid_token"`,
			`error_description="` + tc.description + `"`}
		if r.status != http.StatusUnauthorized || !containsEvery(wa, want...) {
			t.Errorf("%s: %d, WWW-Authenticate %q; want 401 with %q", tc.what, r.status, wa, want)
		}
		t.Logf("%-26s → %d %s", tc.what, r.status, wa)
	}

	// The key rotates in: published now, accepted once the key set is
	// fetched again (the last fetch was at most 10 s ago).
	is.Publish(k2)
	published := time.Now()
	for {
		r := rawPost(t, s.url, rotated, "", initializeLine)
		if r.status == http.StatusOK {
			t.Logf("the rotated key is accepted %v after it was published (key set fetched %d times)",
				time.Since(published).Round(time.Millisecond), is.KeySetFetches())
			break
		}
		if time.Since(published) > 25*time.Second {
			t.Fatalf("the rotated key is still refused %v after it was published: %d %s", time.Since(published), r.status, r.header)
		}
		time.Sleep(250 * time.Millisecond)
	}
	valid := is.Token(s.url, "table:read")
	if r := rawPost(t, s.url, valid, "", initializeLine); r.status == http.StatusUnauthorized {
		t.Errorf("a valid token: %d %s", r.status, r.body)
	}

	code, _ := s.stop(t)
	stderr := s.stderr.String()
	if code != exitOK {
		t.Errorf("exit %d; stderr: %s", code, stderr)
	}
	var refused []logLine
	for _, l := range requestLog(stderr) {
		if l["status"] == "401" {
			refused = append(refused, l)
		}
	}
	if len(refused) < len(cases) {
		t.Fatalf("%d lines with status=401, want at least %d:\n%s", len(refused), len(cases), stderr)
	}
	for i, tc := range cases {
		l := refused[i]
		if l["denied"] != tc.reason {
			t.Errorf("%s: log line denied=%q, want %q: %v", tc.what, l["denied"], tc.reason, l)
		}
		for k := range l {
			switch k {
			case "time", "level", "msg", "method", "status", "denied", "duration":
			default:
				t.Errorf("%s: the log line names %s=%q; want the reason only", tc.what, k, l[k])
			}
		}
	}
	for _, tc := range cases {
		if tc.token != "" && strings.Contains(stderr, tc.token) {
			t.Errorf("%s: the log shows the token", tc.what)
		}
	}
	for _, leak := range []string{"evil.example.com", "api.example.com", "id_token"} {
		if strings.Contains(stderr, leak) {
			t.Errorf("the log shows %q, a detail of a refused token:\n%s", leak, stderr)
		}
	}
}

func containsEvery(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestServeOAuthUsage: what --auth-issuer refuses before serving, and
// what it serves on every interface.
func TestServeOAuthUsage(t *testing.T) {
	t.Parallel()
	is := oauthtest.NewIssuer(t)
	c, _ := servedCLI(t)
	for _, tc := range []struct {
		args  []string
		code  int
		words []string
	}{
		{[]string{"serve", "--http", "0.0.0.0:0", "--auth-issuer", is.URL}, exitUsage, []string{"--resource", "0.0.0.0:0"}},
		{[]string{"serve", "--http", ":0", "--auth-issuer", is.URL}, exitUsage, []string{"--resource"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--resource", "http://x/mcp"}, exitUsage, []string{"--resource", "--auth-issuer"}},
		{[]string{"serve", "--auth-issuer", is.URL}, exitUsage, []string{"--auth-issuer", "--http"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--auth-issuer", "http://idp.example.com"}, exitUsage, []string{"https"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--auth-issuer", is.URL, "--resource", "ftp://x"}, exitUsage, []string{"resource"}},
		{[]string{"serve", "--http", "127.0.0.1:0", "--auth-issuer", "http://127.0.0.1:1"}, exitError, []string{"auth issuer", "127.0.0.1:1"}},
	} {
		r := runChild(t, c, "", tc.args...)
		if r.code != tc.code || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "hubsnap: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line", tc.args, r.code, r.stderr, tc.code)
		}
		mentions(t, strings.Join(tc.args, " "), r.stderr, tc.words...)
	}

	// Every interface, with the URL clients use; issued tokens are not
	// accepted beside OAuth, and the log says so.
	secret := createToken(t, c, "alice", "*")
	const resource = "https://hubsnap.example.com/mcp"
	s := startHTTPServe(t, c, "0.0.0.0:0", "--auth-issuer", is.URL, "--resource", resource)
	local := strings.Replace(s.url, "0.0.0.0", "127.0.0.1", 1)
	meta := rawRequest(t, http.MethodGet, strings.TrimSuffix(local, "/mcp")+"/.well-known/oauth-protected-resource/mcp", "", "", "", "")
	if meta.status != http.StatusOK || !strings.Contains(meta.body, `"resource":"`+resource+`"`) ||
		!strings.Contains(meta.body, `"authorization_servers":["`+is.URL+`"]`) {
		t.Errorf("metadata: %d %s; want the resource %s and the issuer", meta.status, meta.body, resource)
	}
	r := rawPost(t, local, secret, "", initializeLine)
	if r.status != http.StatusUnauthorized || !strings.Contains(r.header.Get("WWW-Authenticate"),
		`resource_metadata="https://hubsnap.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("an issued token with --auth-issuer: %d %q; want 401 naming the resource's metadata", r.status, r.header.Get("WWW-Authenticate"))
	}
	if r := rawPost(t, local, is.Token(resource, "*"), "", initializeLine); r.status != http.StatusOK {
		t.Errorf("a token for %s: %d %s", resource, r.status, r.body)
	}
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("exit %d; stderr %s", code, s.stderr)
	}
	mentions(t, "the log", s.stderr.String(), "level=WARN", "1 token(s) of hubsnap token create are not accepted")
}
