package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Reason says in a few words why a token was refused: for a log line, and
// (through Description) for the error_description of a challenge.
type Reason string

// The reasons a token is refused.
const (
	ReasonNoToken        Reason = "no token"
	ReasonMalformed      Reason = "malformed"
	ReasonUnsupportedAlg Reason = "unsupported algorithm"
	ReasonBadTyp         Reason = "bad typ"
	ReasonUnknownKey     Reason = "unknown key"
	ReasonBadSignature   Reason = "bad signature"
	ReasonWrongIssuer    Reason = "wrong issuer"
	ReasonWrongAudience  Reason = "wrong audience"
	ReasonExpired        Reason = "expired"
	ReasonNotYetValid    Reason = "not yet valid"
)

// Description is the error_description of a 401 challenge for the reason.
func (r Reason) Description() string {
	switch r {
	case ReasonNoToken:
		return "no bearer token"
	case ReasonMalformed:
		return "malformed access token"
	case ReasonUnsupportedAlg:
		return "unsupported signing algorithm"
	case ReasonBadTyp:
		return "not an access token (typ)"
	case ReasonUnknownKey:
		return "signed with an unknown key"
	case ReasonBadSignature:
		return "bad signature"
	case ReasonWrongIssuer:
		return "issued by another issuer"
	case ReasonWrongAudience:
		return "the token is for another resource"
	case ReasonExpired:
		return "the token expired"
	case ReasonNotYetValid:
		return "the token is not yet valid"
	}
	return "invalid token"
}

// Error is why a token was refused. It matches auth.ErrInvalidToken
// (errors.Is), so go-sdk answers 401. Neither field holds the token.
type Error struct {
	// Reason is the short reason.
	Reason Reason
	// Detail is what exactly failed, for the log (a library's message, a
	// kid, a typ, ...). It may be empty.
	Detail string
}

// Error returns "invalid token: <reason>", without Detail.
func (e *Error) Error() string { return "invalid token: " + string(e.Reason) }

// Is makes errors.Is(err, auth.ErrInvalidToken) true.
func (e *Error) Is(target error) bool { return target == auth.ErrInvalidToken }

// ErrNoToken is the Error of a request without a bearer token.
var ErrNoToken = &Error{Reason: ReasonNoToken}

// ReasonOf returns the Reason of an error from Verify (ReasonMalformed for
// any other error, "" for nil).
func ReasonOf(err error) Reason {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Reason
	}
	return ReasonMalformed
}

// Claims are what hubsnap uses of a verified access token.
type Claims struct {
	// Subject is sub: the user (or, for a client's own token, the client).
	Subject string
	// Scopes are the granted scopes, from scope (space-separated) and scp
	// (an array or a string), in order, without duplicates.
	Scopes []string
	// Expiry is exp.
	Expiry time.Time
	// ClientID is client_id (RFC 9068), or azp when that is absent.
	ClientID string
	// Audience is aud; it contains the resource.
	Audience []string
	// ID is jti.
	ID string
	// KeyID and Algorithm are the kid and alg of the signature.
	KeyID, Algorithm string
}

// claimsKey is the TokenInfo.Extra key of the Claims.
const claimsKey = "hubsnap/oauth.Claims"

// TokenInfo is the go-sdk view of the claims: Scopes, Expiration, UserID =
// sub (go-sdk binds each session to it), and the Claims in Extra (see
// ClaimsOf).
func (c *Claims) TokenInfo() *auth.TokenInfo {
	return &auth.TokenInfo{
		Scopes:     c.Scopes,
		Expiration: c.Expiry,
		UserID:     c.Subject,
		Extra:      map[string]any{claimsKey: c},
	}
}

// ClaimsOf returns the Claims a TokenInfo was made from, or nil.
func ClaimsOf(ti *auth.TokenInfo) *Claims {
	if ti == nil {
		return nil
	}
	c, _ := ti.Extra[claimsKey].(*Claims)
	return c
}

// VerifyToken is a go-sdk auth.TokenVerifier (pass v.VerifyToken): it
// verifies the token and returns its TokenInfo, or an *Error that matches
// auth.ErrInvalidToken.
func (v *Verifier) VerifyToken(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	c, err := v.Verify(ctx, token)
	if err != nil {
		return nil, err
	}
	return c.TokenInfo(), nil
}

// VerifyToken is an auth.TokenVerifier.
var _ auth.TokenVerifier = (*Verifier)(nil).VerifyToken

// tokenClaims are the claims read from a token.
type tokenClaims struct {
	jwt.RegisteredClaims
	Scope    any    `json:"scope"`
	Scp      any    `json:"scp"`
	ClientID string `json:"client_id"`
	AZP      string `json:"azp"`
}

// Verify checks an access token (see the package doc) and returns its
// claims. Every error is an *Error.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	var tc tokenClaims
	p := jwt.NewParser(
		jwt.WithValidMethods(Algorithms),
		jwt.WithIssuer(v.issuer),
		jwt.WithAudience(v.resource),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(v.now),
	)
	t, err := p.ParseWithClaims(token, &tc, func(t *jwt.Token) (any, error) { return v.key(ctx, t) })
	if err != nil {
		return nil, classify(t, &tc, err)
	}
	scopes, err := tc.scopes()
	if err != nil {
		return nil, &Error{Reason: ReasonMalformed, Detail: err.Error()}
	}
	if tc.Subject == "" {
		return nil, &Error{Reason: ReasonMalformed, Detail: "no sub"}
	}
	c := &Claims{
		Subject:   tc.Subject,
		Scopes:    scopes,
		Expiry:    tc.ExpiresAt.Time,
		ClientID:  tc.ClientID,
		Audience:  tc.Audience,
		ID:        tc.ID,
		Algorithm: t.Method.Alg(),
	}
	c.KeyID, _ = t.Header["kid"].(string)
	if c.ClientID == "" {
		c.ClientID = tc.AZP
	}
	return c, nil
}

// key is the jwt.Keyfunc: it checks the header and the issuer (before a
// key fetch an unknown kid could cause), then finds the key.
func (v *Verifier) key(ctx context.Context, t *jwt.Token) (any, error) {
	if err := checkTyp(t.Header["typ"]); err != nil {
		return nil, err
	}
	if _, ok := t.Header["crit"]; ok {
		return nil, &Error{Reason: ReasonMalformed, Detail: "crit header: no extension is understood"}
	}
	if iss, _ := t.Claims.GetIssuer(); iss != v.issuer {
		return nil, &Error{Reason: ReasonWrongIssuer, Detail: fmt.Sprintf("iss %q", iss)}
	}
	kid, ok := t.Header["kid"].(string)
	if !ok && t.Header["kid"] != nil {
		return nil, &Error{Reason: ReasonMalformed, Detail: "kid is not a string"}
	}
	return v.keys.lookup(ctx, kid, t.Method.Alg())
}

// checkTyp accepts the typ of an RFC 9068 access token (at+jwt, with or
// without application/, any case), the generic JWT, or none (several
// identity providers, Okta among them, send none); it refuses every other
// value, such as an ID token's or a DPoP proof's.
func checkTyp(typ any) error {
	if typ == nil {
		return nil
	}
	s, ok := typ.(string)
	if ok {
		switch strings.ToLower(s) {
		case "at+jwt", "application/at+jwt", "jwt":
			return nil
		}
	}
	return &Error{Reason: ReasonBadTyp, Detail: fmt.Sprintf("typ %q", fmt.Sprint(typ))}
}

// classify turns a golang-jwt error into an *Error.
func classify(t *jwt.Token, tc *tokenClaims, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	detail := err.Error()
	reason := ReasonMalformed
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed) || t == nil:
	case !slices.Contains(Algorithms, fmt.Sprint(t.Header["alg"])):
		reason, detail = ReasonUnsupportedAlg, fmt.Sprintf("alg %q", fmt.Sprint(t.Header["alg"]))
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		reason = ReasonBadSignature
	case errors.Is(err, jwt.ErrTokenExpired):
		reason = ReasonExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		reason = ReasonNotYetValid
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		reason = ReasonWrongIssuer
	case errors.Is(err, jwt.ErrTokenInvalidAudience),
		errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && len(tc.Audience) == 0:
		reason, detail = ReasonWrongAudience, fmt.Sprintf("aud %q", []string(tc.Audience))
	}
	return &Error{Reason: reason, Detail: detail}
}

// scopes reads scope (RFC 9068, RFC 8693: space-separated) and scp (an
// array, as Okta and Azure send it, or a string).
func (tc *tokenClaims) scopes() ([]string, error) {
	var out []string
	add := func(s string) {
		for f := range strings.FieldsSeq(s) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	for _, claim := range []struct {
		name string
		v    any
	}{{"scope", tc.Scope}, {"scp", tc.Scp}} {
		switch v := claim.v.(type) {
		case nil:
		case string:
			add(v)
		case []any:
			for _, s := range v {
				str, ok := s.(string)
				if !ok {
					return nil, fmt.Errorf("%s holds a %T", claim.name, s)
				}
				add(str)
			}
		default:
			return nil, fmt.Errorf("%s is a %T", claim.name, v)
		}
	}
	return out, nil
}
