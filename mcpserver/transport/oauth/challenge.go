package oauth

import (
	"context"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// Metadata is the RFC 9728 protected-resource metadata of the resource:
// its identifier, the issuer as its only authorization server, the hubsnap
// scopes, bearer tokens in the Authorization header only, and its name.
func (v *Verifier) Metadata() *oauthex.ProtectedResourceMetadata {
	scopes := make([]string, len(access.Scopes))
	for i, s := range access.Scopes {
		scopes[i] = string(s)
	}
	return &oauthex.ProtectedResourceMetadata{
		Resource:               v.resource,
		AuthorizationServers:   []string{v.issuer},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           v.name,
	}
}

// MetadataHandler serves Metadata (GET, and OPTIONS for CORS preflight)
// through go-sdk's auth.ProtectedResourceMetadataHandler. Mount it at
// MetadataPath.
func (v *Verifier) MetadataHandler() http.Handler {
	return auth.ProtectedResourceMetadataHandler(v.Metadata())
}

// MetadataURL is where RFC 9728 §3.1 puts the resource's metadata: for the
// resource http://host/mcp, http://host/.well-known/oauth-protected-resource/mcp.
// Challenges name it as resource_metadata.
func (v *Verifier) MetadataURL() string { return v.metadataURL }

// MetadataPath is the path of MetadataURL, to mount MetadataHandler on a
// mux: /.well-known/oauth-protected-resource/mcp for the resource .../mcp.
func (v *Verifier) MetadataPath() string { return v.metadataPath }

// Require guards next: a request without a valid access token is given to
// deny, with the challenge of docs/team.md (Unauthorized, naming the reason)
// and the reason's description; the caller's deny answers 401. A
// valid token's TokenInfo goes into the request context through go-sdk's
// auth.RequireBearerToken (with Leeway as its ClockSkew), where go-sdk's
// Streamable HTTP handler finds it (req.Extra.TokenInfo in a tool, and the
// session bound to its UserID, sub). observe, when not nil, is called once
// per request before the answer, with the claims or the error (ErrNoToken
// without a token): for the log line. Scopes are not checked here; a
// handler that needs one the token lacks answers 403 with the challenge
// InsufficientScope. The statuses are the caller's: hubsnap's HTTP answers
// are all written in mcpserver/errors.go.
func (v *Verifier) Require(next http.Handler, deny func(w http.ResponseWriter, challenge, why string),
	observe func(r *http.Request, c *Claims, err error)) http.Handler {
	if observe == nil {
		observe = func(*http.Request, *Claims, error) {}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := BearerToken(r)
		if !ok {
			observe(r, nil, ErrNoToken)
			deny(w, Unauthorized(v.metadataURL, ErrNoToken), ReasonOf(ErrNoToken).Description())
			return
		}
		c, err := v.Verify(r.Context(), token)
		observe(r, c, err)
		if err != nil {
			deny(w, Unauthorized(v.metadataURL, err), ReasonOf(err).Description())
			return
		}
		ti := c.TokenInfo()
		verified := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return ti, nil }
		auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL: v.metadataURL,
			ClockSkew:           Leeway,
		})(next).ServeHTTP(w, r)
	})
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header (RFC 6750 §2.1; the scheme in any case), as go-sdk reads it.
func BearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// Unauthorized is the WWW-Authenticate value of a 401 (docs/team.md):
//
//	Bearer resource_metadata="<url>", error="invalid_token", error_description="<why>"
//
// for a missing token too (hubsnap sends error="invalid_token" there,
// where RFC 6750 §3.1 would send no error code). The description is
// err's Reason.Description (ReasonOf), never the token.
func Unauthorized(metadataURL string, err error) string {
	return challenge(
		"resource_metadata", metadataURL,
		"error", "invalid_token",
		"error_description", ReasonOf(err).Description(),
	)
}

// InsufficientScope is the WWW-Authenticate value of a 403 for a request
// that needs scopes its token lacks: the step-up challenge of docs/team.md
// (RFC 6750 §3.1),
//
//	Bearer error="insufficient_scope", scope="<needed>", resource_metadata="<url>"
//
// naming the scopes needed, space-separated.
func InsufficientScope(metadataURL string, needed ...access.Scope) string {
	return challenge(
		"error", "insufficient_scope",
		"scope", scopeList(needed),
		"resource_metadata", metadataURL,
	)
}

// scopeList is the scope attribute of a challenge: space-separated.
func scopeList(scopes []access.Scope) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, " ")
}

// challenge formats a Bearer challenge from name, value pairs, leaving out
// empty values.
func challenge(pairs ...string) string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		b.WriteString(sep + pairs[i] + "=" + quote(pairs[i+1]))
		sep = ", "
	}
	return b.String()
}

// quote makes an HTTP quoted-string (RFC 9110 §5.6.4) of s: '"' and '\'
// are escaped, and controls and non-ASCII, which RFC 6750 §3 allows in no
// attribute value, become '?'.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
