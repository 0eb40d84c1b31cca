package transport

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The order of every layer a request goes through, written once, outermost
// first (a layer that answers ends the request). stdio has no HTTP layers:
// its reader (stdio.go) refuses what go-sdk cannot take, then the MCP
// layers from 8 on run.
//
// HTTP, for a request to /mcp (httpHandler.ServeHTTP and serveMCP below):
//
//  1. the request record and its log line (requestLog.begin, end: httplog.go)
//  2. access: issued tokens (serveIssued) or OAuth (serveOAuth), 401/503 (http_access.go)
//  3. the body, bounded in size and time (requestRecord.peek: http_body.go), 413/408/400
//  4. the scopes an OAuth token lacks, 403 (insufficientScope: http_access.go)
//  5. the era: a session-less 2026-07-28 request, or every request with
//     --stateless, goes to go-sdk's stateless handler (eraOf: http_route.go)
//  6. the session table: a known session is marked in use (404 when gone), a
//     new one takes a place (503 when none is free) (http_sessions.go)
//  7. go-sdk's stateful handler; both of go-sdk's handlers sit behind
//     cross-origin protection (HTTPHandler: http.go)
//
// MCP, for every JSON-RPC request: over HTTP first the transport's own
// layers (httpHandler.middleware below), then on every transport the
// server's (mcpserver.Server's, installed by mcpserver.New: a server served
// over an in-memory transport, as mcpserver's tests do, has them too):
//
//  8. the result into the HTTP request's log record (noteResult: httplog.go)
//  9. a new session into the session table, before its id is sent (bindSession: httplog.go)
//  10. no resources/subscribe without a session (sessionlessSubscriptions: http_route.go)
//  11. a panic answers -32603 and the server keeps serving (mcpserver: layers.go)
//  12. Shutdown cancels every call in flight (mcpserver: layers.go)
//  13. prompts/* is -32601: hubsnap has none (mcpserver: layers.go)
//  14. the token's scopes: FORBIDDEN or -32001 (mcpserver: scopes.go)
//  15. go-sdk's argument errors in hubsnap's shape (mcpserver: arguments.go)
//  16. arguments over their schema's bounds, before decoding (mcpserver: bounds.go)
//  17. an argument that is null is left out (mcpserver: arguments.go)
//  18. go-sdk's own handler, kept to drop a closed session's subscriptions (mcpserver: resources.go)

// middleware is the HTTP transport's MCP middleware, layers 8 to 10 above,
// outermost first; HTTPHandler adds it above the server's.
func (h *httpHandler) middleware() []mcp.Middleware {
	return []mcp.Middleware{
		h.log.noteResult,           // 8
		h.log.bindSession,          // 9
		h.sessionlessSubscriptions, // 10
	}
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec, w := h.log.begin(w, r)
	defer h.log.end(rec)
	if h.opts.OAuth != nil {
		h.serveOAuth(w, r, rec)
		return
	}
	h.serveIssued(w, r, rec)
}

// serveMCP serves a request that passed the access check: the body (its
// size and time bounded), the scopes an OAuth token lacks (403), then the
// stateless handler for a session-less 2026-07-28 request (or every
// request with opts.Stateless), else the stateful one, which the session
// table follows: a request of a session marks it in use (404 when it is
// gone), a new one takes a place.
func (h *httpHandler) serveMCP(w http.ResponseWriter, r *http.Request, rec *requestRecord) {
	var msgs []rpcMessage
	if r.Method == http.MethodPost {
		var ok bool
		if msgs, ok = rec.peek(w, r, h.opts.MaxBodyBytes, h.opts.BodyTimeout); !ok {
			return
		}
		if h.opts.OAuth != nil && h.insufficientScope(w, r, rec, msgs) {
			return
		}
	}
	id := r.Header.Get("Mcp-Session-Id")
	var e era
	if r.Method == http.MethodPost {
		e = eraOf(r.Header, msgs)
	}
	if h.stateful == nil || (r.Method == http.MethodPost && id == "" && e.modern) {
		rec.setSessionless(sessionlessReason(h.stateful == nil, e))
		h.stateless.ServeHTTP(w, r)
		return
	}
	switch {
	case id != "":
		e, ok := h.sessions.use(id)
		if !ok {
			sessionGone(w)
			return
		}
		defer h.sessions.done(e)
	case r.Method == http.MethodPost:
		res, err := h.sessions.reserve(rec.owner(r), rec.tokenHash())
		if err != nil {
			tooManySessions(w, err)
			return
		}
		rec.reserve(h.sessions, res)
		defer h.sessions.release(res)
	}
	h.stateful.ServeHTTP(w, r)
}
