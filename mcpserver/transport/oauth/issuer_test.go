package oauth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// testResource is the resource the tests' verifiers guard.
const testResource = "http://127.0.0.1:7420/mcp"

// testIssuer is an authorization server in an httptest server: it serves
// metadata (RFC 8414 and/or OpenID) and a key set, and signs tokens.
type testIssuer struct {
	tb      testing.TB
	srv     *httptest.Server
	URL     string // the issuer identifier: srv.URL + path
	path    string
	rfc8414 bool   // serve /.well-known/oauth-authorization-server
	oidc    bool   // serve /.well-known/openid-configuration
	metaIss string // the issuer the metadata names; URL when empty

	mu        sync.Mutex
	published []testKey
	jwksBody  []byte // served instead of the keys when set
	jwksHits  atomic.Int32
	metaHits  sync.Map // path -> *atomic.Int32
	down      atomic.Bool
}

// testKey is a signing key of the issuer.
type testKey struct {
	kid, alg string
	priv     crypto.Signer
}

// newTestIssuer starts an issuer at path ("" for the root) that serves
// RFC 8414 metadata and one key per algorithm of Algorithms.
func newTestIssuer(tb testing.TB, path string) *testIssuer {
	tb.Helper()
	is := &testIssuer{tb: tb, path: path, rfc8414: true}
	is.srv = httptest.NewServer(http.HandlerFunc(is.serve))
	tb.Cleanup(is.srv.Close)
	is.URL = is.srv.URL + path
	for _, alg := range Algorithms {
		is.publish(is.newKey(alg, "k-"+alg))
	}
	return is
}

func (is *testIssuer) serve(w http.ResponseWriter, r *http.Request) {
	if is.down.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	n, _ := is.metaHits.LoadOrStore(r.URL.Path, new(atomic.Int32))
	n.(*atomic.Int32).Add(1)
	meta := func() {
		iss := is.metaIss
		if iss == "" {
			iss = is.URL
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "jwks_uri": is.srv.URL + "/jwks"})
	}
	switch {
	case r.URL.Path == "/jwks":
		is.jwksHits.Add(1)
		is.mu.Lock()
		body := is.jwksBody
		if body == nil {
			body = is.jwks()
		}
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(body)
	case is.rfc8414 && r.URL.Path == "/.well-known/oauth-authorization-server"+is.path:
		meta()
	case is.oidc && r.URL.Path == is.path+"/.well-known/openid-configuration":
		meta()
	default:
		http.NotFound(w, r)
	}
}

// hits is how many requests path got.
func (is *testIssuer) hits(path string) int32 {
	if n, ok := is.metaHits.Load(path); ok {
		return n.(*atomic.Int32).Load()
	}
	return 0
}

// newKey makes a key for alg (not yet published).
func (is *testIssuer) newKey(alg, kid string) testKey {
	is.tb.Helper()
	var priv crypto.Signer
	var err error
	switch alg {
	case "RS256":
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "EdDSA":
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		is.tb.Fatalf("no key for %s", alg)
	}
	if err != nil {
		is.tb.Fatal(err)
	}
	return testKey{kid: kid, alg: alg, priv: priv}
}

// publish adds keys to the key set.
func (is *testIssuer) publish(keys ...testKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = append(is.published, keys...)
}

// withdraw removes a key from the key set.
func (is *testIssuer) withdraw(kid string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	for i, k := range is.published {
		if k.kid == kid {
			is.published = append(is.published[:i], is.published[i+1:]...)
			return
		}
	}
}

// key returns a published key.
func (is *testIssuer) key(kid string) testKey {
	is.mu.Lock()
	defer is.mu.Unlock()
	for _, k := range is.published {
		if k.kid == kid {
			return k
		}
	}
	is.tb.Fatalf("no key %q", kid)
	return testKey{}
}

// jwks is the public key set. is.mu is held.
func (is *testIssuer) jwks() []byte {
	var set jwkset.JWKSMarshal
	for _, k := range is.published {
		jwk, err := jwkset.NewJWKFromKey(k.priv.Public(), jwkset.JWKOptions{
			Metadata: jwkset.JWKMetadataOptions{KID: k.kid, ALG: jwkset.ALG(k.alg), USE: jwkset.UseSig},
		})
		if err != nil {
			is.tb.Fatal(err)
		}
		set.Keys = append(set.Keys, jwk.Marshal())
	}
	b, err := json.Marshal(set)
	if err != nil {
		is.tb.Fatal(err)
	}
	return b
}

// claims are valid claims for testResource at now.
func (is *testIssuer) claims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss":       is.URL,
		"sub":       "alice",
		"aud":       testResource,
		"exp":       now.Add(5 * time.Minute).Unix(),
		"iat":       now.Unix(),
		"scope":     "table:read logic:read",
		"client_id": "cli",
		"jti":       "j1",
	}
}

// sign signs claims with k, typ at+jwt, and header overrides (a nil value
// removes a header).
func (is *testIssuer) sign(k testKey, claims jwt.MapClaims, header map[string]any) string {
	is.tb.Helper()
	t := jwt.NewWithClaims(jwt.GetSigningMethod(k.alg), claims)
	t.Header["typ"] = "at+jwt"
	t.Header["kid"] = k.kid
	for name, v := range header {
		if v == nil {
			delete(t.Header, name)
		} else {
			t.Header[name] = v
		}
	}
	s, err := t.SignedString(k.priv)
	if err != nil {
		is.tb.Fatal(err)
	}
	return s
}

// verifier starts a Verifier for is and testResource, logging into logs.
func (is *testIssuer) verifier(logs *syncBuffer) *Verifier {
	is.tb.Helper()
	cfg := Config{Issuer: is.URL, Resource: testResource}
	if logs != nil {
		cfg.Log = slog.New(slog.NewTextHandler(logs, nil))
	}
	v, err := New(context.Background(), cfg)
	if err != nil {
		is.tb.Fatal(err)
	}
	is.tb.Cleanup(v.keys.bg.Wait)
	return v
}

// clock is a settable time for a Verifier.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// useClock makes v read the time from a clock that starts now.
func useClock(v *Verifier) *clock {
	c := &clock{t: time.Now()}
	v.now = c.now
	return c
}

// syncBuffer is a bytes.Buffer safe for concurrent writes (of the log).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// contains reports whether the log holds each of subs.
func (s *syncBuffer) contains(subs ...string) bool {
	str := s.String()
	for _, sub := range subs {
		if !strings.Contains(str, sub) {
			return false
		}
	}
	return true
}
