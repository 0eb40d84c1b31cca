package oauth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

func TestVerifyAcceptsEachAlgorithm(t *testing.T) {
	is := newTestIssuer(t, "")
	v := is.verifier(nil)
	now := time.Now()
	for _, alg := range Algorithms {
		t.Run(alg, func(t *testing.T) {
			claims := is.claims(now)
			c, err := v.Verify(context.Background(), is.sign(is.key("k-"+alg), claims, nil))
			if err != nil {
				t.Fatal(err)
			}
			want := &Claims{
				Subject:   "alice",
				Scopes:    []string{"table:read", "logic:read"},
				Expiry:    time.Unix(claims["exp"].(int64), 0),
				ClientID:  "cli",
				Audience:  []string{testResource},
				ID:        "j1",
				KeyID:     "k-" + alg,
				Algorithm: alg,
			}
			if diff := cmp.Diff(want, c); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
			ti, err := v.VerifyToken(context.Background(), is.sign(is.key("k-"+alg), claims, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ti.UserID, "alice"; got != want {
				t.Errorf("UserID = %q, want %q", got, want)
			}
			if !ti.Expiration.Equal(want.Expiry) || !cmp.Equal(ti.Scopes, want.Scopes) || ClaimsOf(ti) == nil {
				t.Errorf("TokenInfo = %+v", ti)
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	is := newTestIssuer(t, "")
	v := is.verifier(nil)
	now := time.Now()
	rsaKey := is.key("k-RS256")
	es := is.key("k-ES256")
	other := is.newKey("ES256", "k-ES256") // same kid, key not published
	with := func(set map[string]any) jwt.MapClaims {
		c := is.claims(now)
		for k, val := range set {
			if val == nil {
				delete(c, k)
			} else {
				c[k] = val
			}
		}
		return c
	}
	// HS256 "signed" with the RSA public key, as a verifier that lets the
	// token pick the algorithm would check it.
	der, err := x509.MarshalPKIXPublicKey(rsaKey.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, is.claims(now))
	hs.Header["kid"] = rsaKey.kid
	hsToken, err := hs.SignedString(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	none := jwt.NewWithClaims(jwt.SigningMethodNone, is.claims(now))
	none.Header["kid"] = es.kid
	noneToken, err := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		token string
		want  Reason // "" = accepted
	}{
		{"expired", is.sign(es, with(map[string]any{"exp": now.Add(-61 * time.Second).Unix()}), nil), ReasonExpired},
		{"expired within leeway", is.sign(es, with(map[string]any{"exp": now.Add(-50 * time.Second).Unix()}), nil), ""},
		{"not yet valid", is.sign(es, with(map[string]any{"nbf": now.Add(2 * time.Minute).Unix()}), nil), ReasonNotYetValid},
		{"nbf within leeway", is.sign(es, with(map[string]any{"nbf": now.Add(50 * time.Second).Unix()}), nil), ""},
		{"no exp", is.sign(es, with(map[string]any{"exp": nil}), nil), ReasonMalformed},
		{"wrong issuer", is.sign(es, with(map[string]any{"iss": "https://evil.example"}), nil), ReasonWrongIssuer},
		{"issuer with a trailing slash", is.sign(es, with(map[string]any{"iss": is.URL + "/"}), nil), ReasonWrongIssuer},
		{"no issuer", is.sign(es, with(map[string]any{"iss": nil}), nil), ReasonWrongIssuer},
		{"another resource", is.sign(es, with(map[string]any{"aud": "http://127.0.0.1:7421/mcp"}), nil), ReasonWrongAudience},
		{"aud array without the resource", is.sign(es, with(map[string]any{"aud": []string{"a", "b"}}), nil), ReasonWrongAudience},
		{"aud array with the resource", is.sign(es, with(map[string]any{"aud": []string{"a", testResource}}), nil), ""},
		{"no aud", is.sign(es, with(map[string]any{"aud": nil}), nil), ReasonWrongAudience},
		{"no sub", is.sign(es, with(map[string]any{"sub": nil}), nil), ReasonMalformed},
		{"alg none", noneToken, ReasonUnsupportedAlg},
		{"HS256 with the RSA public key", hsToken, ReasonUnsupportedAlg},
		{"RS384", is.sign(testKey{kid: rsaKey.kid, alg: "RS384", priv: rsaKey.priv}, is.claims(now), nil), ReasonUnsupportedAlg},
		{"ES256 signature, kid of the RSA key", is.sign(testKey{kid: rsaKey.kid, alg: "ES256", priv: es.priv}, is.claims(now), nil), ReasonBadSignature},
		{"another key, same kid", is.sign(other, is.claims(now), nil), ReasonBadSignature},
		{"unknown kid", is.sign(is.newKey("ES256", "nope"), is.claims(now), nil), ReasonUnknownKey},
		{"no kid", is.sign(es, is.claims(now), map[string]any{"kid": nil}), ""},
		{"no kid, unknown key", is.sign(other, is.claims(now), map[string]any{"kid": nil}), ReasonBadSignature},
		{"typ at+jwt", is.sign(es, is.claims(now), map[string]any{"typ": "at+jwt"}), ""},
		{"typ application/AT+JWT", is.sign(es, is.claims(now), map[string]any{"typ": "application/AT+JWT"}), ""},
		{"typ JWT", is.sign(es, is.claims(now), map[string]any{"typ": "JWT"}), ""},
		{"no typ", is.sign(es, is.claims(now), map[string]any{"typ": nil}), ""},
		{"typ dpop+jwt", is.sign(es, is.claims(now), map[string]any{"typ": "dpop+jwt"}), ReasonBadTyp},
		{"typ logout+jwt", is.sign(es, is.claims(now), map[string]any{"typ": "logout+jwt"}), ReasonBadTyp},
		{"typ number", is.sign(es, is.claims(now), map[string]any{"typ": 1}), ReasonBadTyp},
		{"crit header", is.sign(es, is.claims(now), map[string]any{"crit": []string{"exp"}}), ReasonMalformed},
		{"scope a number", is.sign(es, with(map[string]any{"scope": 7}), nil), ReasonMalformed},
		{"tampered claims", tamper(is.sign(es, is.claims(now), nil)), ReasonBadSignature},
		{"not a JWT", "abc.def", ReasonMalformed},
		{"empty", "", ReasonMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := v.Verify(context.Background(), tt.token)
			if got := ReasonOf(err); got != tt.want {
				t.Fatalf("reason = %q (%v), want %q", got, err, tt.want)
			}
			if tt.want == "" {
				if c == nil || c.Subject != "alice" {
					t.Errorf("claims = %+v", c)
				}
				return
			}
			if !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("%v does not match auth.ErrInvalidToken", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not an *Error", err)
			}
			for _, s := range []string{err.Error(), e.Detail, e.Reason.Description()} {
				if tt.token != "" && len(tt.token) > 8 && strings.Contains(s, tt.token[len(tt.token)-8:]) {
					t.Errorf("%q holds the token", s)
				}
			}
			if _, err := v.VerifyToken(context.Background(), tt.token, nil); !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("VerifyToken: %v", err)
			}
		})
	}
}

// tamper changes the claims of a signed token (sub alice -> mallory).
func tamper(token string) string {
	parts := strings.Split(token, ".")
	p := jwt.NewParser()
	b, _ := p.DecodeSegment(parts[1])
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(b), `"alice"`, `"mallory"`, 1)))
	return strings.Join(parts, ".")
}

func TestVerifyScopeForms(t *testing.T) {
	is := newTestIssuer(t, "")
	v := is.verifier(nil)
	es := is.key("k-ES256")
	tests := []struct {
		name   string
		claims map[string]any
		want   []string
	}{
		{"scope string", map[string]any{"scope": "table:read  logic:read"}, []string{"table:read", "logic:read"}},
		{"scp array", map[string]any{"scope": nil, "scp": []string{"table:read", "release:read"}}, []string{"table:read", "release:read"}},
		{"scp string", map[string]any{"scope": nil, "scp": "*:read"}, []string{"*:read"}},
		{"both, merged", map[string]any{"scope": "table:read", "scp": []string{"table:read", "logic:read"}}, []string{"table:read", "logic:read"}},
		{"none", map[string]any{"scope": nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := is.claims(time.Now())
			for k, val := range tt.claims {
				if val == nil {
					delete(c, k)
				} else {
					c[k] = val
				}
			}
			got, err := v.Verify(context.Background(), is.sign(es, c, nil))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Scopes); diff != "" {
				t.Errorf("scopes (-want +got):\n%s", diff)
			}
		})
	}
}
