package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// Issuer is a minimal authorization server in an httptest server, for
// tests that need tokens a real one would not issue (expired, for another
// audience, signed with an unpublished key, ...): it serves RFC 8414
// metadata and a key set, and signs whatever claims it is given. The
// sign-in flow itself is Provider's.
type Issuer struct {
	// URL is the issuer identifier, http://127.0.0.1:PORT.
	URL string

	tb        testing.TB
	srv       *httptest.Server
	mu        sync.Mutex
	published []Key
	jwksHits  atomic.Int32
}

// Key is a signing key of an Issuer.
type Key struct {
	ID, Alg string
	priv    crypto.Signer
}

// NewIssuer starts an Issuer that publishes one ES256 key, "k1"; it stops
// when the test ends.
func NewIssuer(tb testing.TB) *Issuer {
	tb.Helper()
	is := &Issuer{tb: tb}
	is.srv = httptest.NewServer(http.HandlerFunc(is.serve))
	tb.Cleanup(is.srv.Close)
	is.URL = is.srv.URL
	is.Publish(is.NewKey("ES256", "k1"))
	return is
}

func (is *Issuer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.URL, "jwks_uri": is.URL + "/jwks",
			"authorization_endpoint": is.URL + "/authorize", "token_endpoint": is.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		})
	case "/jwks":
		is.jwksHits.Add(1)
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(is.jwks())
	default:
		http.NotFound(w, r)
	}
}

// KeySetFetches is how many times the key set was fetched.
func (is *Issuer) KeySetFetches() int { return int(is.jwksHits.Load()) }

// NewKey makes a key for alg (RS256, ES256 or EdDSA), not yet published.
func (is *Issuer) NewKey(alg, id string) Key {
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
		is.tb.Fatalf("oauthtest: no key for %s", alg)
	}
	if err != nil {
		is.tb.Fatal(err)
	}
	return Key{ID: id, Alg: alg, priv: priv}
}

// Publish adds keys to the key set.
func (is *Issuer) Publish(keys ...Key) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = append(is.published, keys...)
}

// Key returns the published key id.
func (is *Issuer) Key(id string) Key {
	is.tb.Helper()
	is.mu.Lock()
	defer is.mu.Unlock()
	for _, k := range is.published {
		if k.ID == id {
			return k
		}
	}
	is.tb.Fatalf("oauthtest: no key %q", id)
	return Key{}
}

// PublicKey is k's public key (to sign a token with it as an HMAC secret,
// as an attacker would).
func (k Key) PublicKey() crypto.PublicKey { return k.priv.Public() }

func (is *Issuer) jwks() []byte {
	is.mu.Lock()
	defer is.mu.Unlock()
	var set jwkset.JWKSMarshal
	for _, k := range is.published {
		jwk, err := jwkset.NewJWKFromKey(k.priv.Public(), jwkset.JWKOptions{
			Metadata: jwkset.JWKMetadataOptions{KID: k.ID, ALG: jwkset.ALG(k.Alg), USE: jwkset.UseSig},
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

// Claims are valid claims of an access token for resource with scope
// (space-separated), subject Account, valid for five minutes from now.
func (is *Issuer) Claims(resource, scope string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss":       is.URL,
		"sub":       Account,
		"aud":       resource,
		"exp":       now.Add(5 * time.Minute).Unix(),
		"iat":       now.Unix(),
		"scope":     scope,
		"client_id": "hubsnap-test",
		"jti":       rand.Text(),
	}
}

// Sign signs claims with k, with the headers typ at+jwt and kid k.ID,
// changed by header (a nil value removes a header).
func (is *Issuer) Sign(k Key, claims jwt.MapClaims, header map[string]any) string {
	is.tb.Helper()
	t := jwt.NewWithClaims(jwt.GetSigningMethod(k.Alg), claims)
	t.Header["typ"] = "at+jwt"
	t.Header["kid"] = k.ID
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

// Token is a valid access token for resource with scope, signed with k1.
func (is *Issuer) Token(resource, scope string) string {
	is.tb.Helper()
	return is.Sign(is.Key("k1"), is.Claims(resource, scope), nil)
}
