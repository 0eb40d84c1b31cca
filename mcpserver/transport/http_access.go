package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth"
)

// Access to /mcp (docs/team.md), one way or the other: issued tokens
// (serveIssued) or OAuth 2.1 access tokens (serveOAuth). Either way the
// token's scopes reach the tools through go-sdk's auth.TokenInfo, and a
// stateful session is bound to the token's name or subject, so that
// another token cannot take it over.

// serveIssued guards /mcp with the tokens of `hubsnap token create`: open
// on loopback while none was ever issued, else every request needs one.
// The token is checked from the headers alone, before the body is read;
// a request without a valid one gets 401 with a plain Bearer challenge
// (tokenChallenge): no OAuth is advertised, as none would work.
func (h *httpHandler) serveIssued(w http.ResponseWriter, r *http.Request, rec *requestRecord) {
	issued := false
	if h.opts.Tokens != nil {
		var err error
		// As of the request's arrival: a token made or revoked before it
		// counts, and Issued and Lookup share one look at the file.
		if issued, err = h.opts.Tokens.IssuedAsOf(rec.start); err != nil {
			h.tokenFileError(err)
			tokenFileUnreadable(w)
			return
		}
		if h.fileErr.Load() != nil {
			h.fileErr.Store(nil) // readable again: log the next failure
		}
	}
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.serveMCP(w, r, rec) })
	if !issued && arrivedOnLoopback(r) {
		guarded.ServeHTTP(w, r) // no token issued: open, on loopback only
		return
	}
	secret, ok := oauth.BearerToken(r)
	if !ok {
		rec.deny("no token")
		unauthorizedToken(w, "this server needs a token")
		return
	}
	if h.opts.Tokens == nil {
		rec.deny("no tokens are issued")
		unauthorizedToken(w, "no tokens are issued")
		return
	}
	t, err := h.opts.Tokens.LookupAsOf(secret, rec.start)
	switch {
	case errors.Is(err, access.ErrUnknownToken):
		rec.deny("unknown or revoked token")
		unauthorizedToken(w, "unknown or revoked token")
		return
	case err != nil:
		h.tokenFileError(err)
		tokenFileUnreadable(w)
		return
	}
	rec.setToken(t.Name, t.Hash)
	// go-sdk's auth package puts the token's scopes where the tools see
	// them, and ties each session to the token's name, so that another
	// token cannot take it over.
	ti := &auth.TokenInfo{Scopes: t.Scopes, UserID: t.Name}
	auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return ti, nil },
		&auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(guarded).ServeHTTP(w, r)
}

// tokenFileError logs why the token file cannot be read, once per distinct
// reason rather than once per refused request.
func (h *httpHandler) tokenFileError(err error) {
	msg := err.Error()
	if last := h.fileErr.Swap(&msg); last == nil || *last != msg {
		h.server.Log().Error("the token file cannot be read; every request is refused until it can", "err", err)
	}
}

// serveOAuth guards /mcp with OAuth 2.1 access tokens: a request without
// a valid one gets 401 with the challenge of docs/team.md (the log line says
// why, never the token); a valid one is logged by its subject.
func (h *httpHandler) serveOAuth(w http.ResponseWriter, r *http.Request, rec *requestRecord) {
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.serveMCP(w, r, rec) })
	h.opts.OAuth.Require(guarded, unauthorizedOAuth, func(_ *http.Request, c *oauth.Claims, err error) {
		if err != nil {
			rec.deny(string(oauth.ReasonOf(err)))
			return
		}
		rec.setSubject(c.Subject)
	}).ServeHTTP(w, r)
}

// insufficientScope answers 403 with the insufficient_scope challenge,
// naming the scope needed, when the body asks for something outside the
// OAuth token's scopes (see mcpserver.Server.MissingScope), and reports
// whether it did: the first message that needs a scope the token lacks
// decides.
//
// The body of a single request is a JSON-RPC error with the request's id
// (codeForbidden), so that a client reads it as that call's failure and
// keeps its session; go-sdk's client does.
func (h *httpHandler) insufficientScope(w http.ResponseWriter, r *http.Request, rec *requestRecord, msgs []rpcMessage) bool {
	ti := auth.TokenInfoFromContext(r.Context())
	if ti == nil {
		return false
	}
	var need access.Scope
	for _, m := range msgs {
		if need = h.server.MissingScope(ti.Scopes, m.Method, m.Params); need != "" {
			break
		}
	}
	if need == "" {
		return false
	}
	rec.deny("insufficient scope: " + string(need))
	var id json.RawMessage
	if len(msgs) == 1 {
		id = msgs[0].ID
	}
	insufficientScope(w, oauth.InsufficientScope(h.opts.OAuth.MetadataURL(), need), id, need)
	return true
}
