package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The order of every layer a request goes through, written once: the HTTP
// layers of a request to /mcp (httpHandler.ServeHTTP and serveMCP below),
// then the MCP middleware of every request, whatever its transport
// (middleware). stdio has no HTTP layers: its reader (stdio.go) refuses
// what go-sdk cannot take, then the MCP middleware runs.
//
// HTTP, outermost first (a layer that answers ends the request):
//
//  1. the request record and its log line (beginRequest, endRequest: httplog.go)
//  2. access: issued tokens (serveIssued) or OAuth (serveOAuth), 401/503 (http_access.go)
//  3. the body, bounded in size and time (requestRecord.peek: httplog.go), 413/408/400
//  4. the scopes an OAuth token lacks, 403 (insufficientScope: http_access.go)
//  5. the era: a session-less 2026-07-28 request, or every request with
//     --stateless, goes to go-sdk's stateless handler (eraOf: http_route.go)
//  6. the session table: a known session is marked in use (404 when gone), a
//     new one takes a place (503 when none is free) (http_sessions.go)
//  7. go-sdk's stateful handler; both of go-sdk's handlers sit behind
//     cross-origin protection (HTTPHandler: http.go)

// middleware is the MCP middleware of every request, outermost first.
func (s *Server) middleware() []mcp.Middleware {
	return []mcp.Middleware{
		s.noteResult,               // the result into the HTTP request's log record (httplog.go)
		s.bindSession,              // a new session into the session table, before its id is sent (httplog.go)
		s.recoverPanics,            // a panic answers -32603 and the server keeps serving
		s.cancelOnShutdown,         // Shutdown cancels every call in flight
		noPrompts,                  // prompts/* is -32601: hubsnap has none
		s.sessionlessSubscriptions, // no resources/subscribe without a session (http_route.go)
		s.checkScopes,              // the token's scopes: FORBIDDEN or -32001 (scopes.go)
		argumentErrors,             // go-sdk's argument errors in hubsnap's shape (arguments.go)
		s.boundArguments,           // arguments over their schema's bounds, before decoding (bounds.go)
		nullArguments,              // an argument that is null is left out (arguments.go)
		s.keepCore,                 // innermost: keeps go-sdk's own handler (resources.go)
	}
}

// recoverPanics answers a panicking handler with -32603 and keeps serving.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic in a handler", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = nil, internalRPCError()
			}
		}()
		return next(ctx, method, req)
	}
}

// noPrompts answers the prompt methods -32601: hubsnap has no prompts and
// does not declare the capability, so it does not answer them either
// (go-sdk would answer an empty list, which says the opposite).
func noPrompts(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "prompts/") {
			return nil, methodNotFound("method not found: hubsnap has no prompts")
		}
		return next(ctx, method, req)
	}
}

// cancelOnShutdown ties each request's context to the server's lifetime:
// go-sdk waits for handlers on shutdown but never cancels them.
func (s *Server) cancelOnShutdown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.stop, cancel)
		defer stop()
		return next(ctx, method, req)
	}
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec, w := h.server.beginRequest(w, r)
	defer h.server.endRequest(h.opts.Log, rec)
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
