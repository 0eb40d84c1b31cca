package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// What the transports answer themselves, before or beside MCP: the
// JSON-RPC errors of a message go-sdk is not given, and every HTTP status.
// The server's own errors (tool errors, its JSON-RPC errors) are mapped
// in package mcpserver (errors.go).

// notJSON is the error of a line that is not JSON (stdio).
func notJSON() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the line is not JSON"}
}

// invalidRequest is the error of a message go-sdk is not given, or of a
// request the transport cannot serve as sent.
func invalidRequest(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: why}
}

// errorResponse is a JSON-RPC error response to id (null when nil).
func errorResponse(id json.RawMessage, e *jsonrpc.Error) json.RawMessage {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	return b
}

// forbiddenResponse is the JSON-RPC error response (mcpserver.CodeForbidden)
// in the body of an HTTP 403 for a request outside an OAuth token's scopes,
// with the scope needed in its data.
func forbiddenResponse(id json.RawMessage, message string, need access.Scope) any {
	type data struct {
		Scope access.Scope `json:"scope"`
	}
	return struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: mcpserver.CodeForbidden, Message: message, Data: mustJSON(data{need})}}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// HTTP answers of /mcp that MCP does not make (http*.go). Each is plain
// text: go-sdk's client reads a JSON-RPC error in the body of a non-2xx
// answer as that call's failure and keeps the session, which is wrong for
// a session that is gone (it would never learn ErrSessionMissing).

// notMCP answers 404 to a path other than /mcp (and the OAuth metadata).
func notMCP(w http.ResponseWriter) {
	http.Error(w, "not found: hubsnap serves MCP at "+mcpPath, http.StatusNotFound)
}

// unauthorizedOAuth answers 401 to a request without a valid OAuth access
// token, with the challenge of docs/team.md (oauth.Verifier.Require makes
// it) and its description, never the token.
func unauthorizedOAuth(w http.ResponseWriter, challenge, why string) {
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, "unauthorized: "+why, http.StatusUnauthorized)
}

// insufficientScope answers 403 with the insufficient_scope challenge to
// a request that asks for something outside its OAuth token's scopes. The
// body of a single request (id not empty) is a JSON-RPC error with its id
// (mcpserver.CodeForbidden), so that a client reads it as that call's failure and
// keeps its session, as go-sdk's client does; else it is plain text.
func insufficientScope(w http.ResponseWriter, challenge string, id json.RawMessage, need access.Scope) {
	w.Header().Set("WWW-Authenticate", challenge)
	msg := fmt.Sprintf("insufficient scope: this needs %s, which the access token lacks", need)
	if len(id) > 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(forbiddenResponse(id, msg, need))
		return
	}
	http.Error(w, msg, http.StatusForbidden)
}

// tokenChallenge is the WWW-Authenticate of a 401 with issued tokens: a
// plain Bearer challenge (RFC 6750 §3) that names no resource metadata, as
// there is no OAuth flow to start: the token comes from `hubsnap token
// create`.
func tokenChallenge(why string) string {
	return `Bearer error="invalid_token", error_description="` + why +
		`: pass a token from hubsnap token create as Authorization: Bearer TOKEN"`
}

// unauthorizedToken answers 401 to a request without a valid issued token.
func unauthorizedToken(w http.ResponseWriter, why string) {
	w.Header().Set("WWW-Authenticate", tokenChallenge(why))
	http.Error(w, "unauthorized: "+why+"; pass a token from `hubsnap token create` as \"Authorization: Bearer TOKEN\"",
		http.StatusUnauthorized)
}

// noOAuth answers 404 to a client that looks for OAuth on a server
// without it (a client may try even though the 401 names no metadata):
// what it shows its user, for example mcp-remote's "Dynamic Client
// Registration rejected (HTTP 404): ...", then says what to do instead.
func noOAuth(w http.ResponseWriter) {
	http.Error(w, "not found: this server uses no OAuth; its tokens come from `hubsnap token create`, "+
		"to be sent as \"Authorization: Bearer TOKEN\" (mcp-remote: --header \"Authorization:Bearer TOKEN\")",
		http.StatusNotFound)
}

// tokenFileUnreadable answers 503 while the token file cannot be read.
func tokenFileUnreadable(w http.ResponseWriter) {
	http.Error(w, "the server cannot read its token file; see its log", http.StatusServiceUnavailable)
}

// sessionGone answers 404 to a request of a session that is not open (any
// more): the Streamable HTTP transport's sign to initialize again.
func sessionGone(w http.ResponseWriter) {
	http.Error(w, "session not found: it was closed (idle too long, evicted for a newer one, its token revoked, "+
		"or the server restarted); start a new session with initialize", http.StatusNotFound)
}

// tooManySessions answers 503 when no session can be made now.
func tooManySessions(w http.ResponseWriter, err error) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, err.Error(), http.StatusServiceUnavailable)
}

// badBody answers a request whose body could not be read: 413 over limit
// bytes, 408 not read within the time given, else 400.
func badBody(w http.ResponseWriter, err error, limit int64, within time.Duration) {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		http.Error(w, "request body over "+strconv.FormatInt(limit, 10)+" bytes", http.StatusRequestEntityTooLarge)
		return
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		http.Error(w, "request body not received within "+within.String(), http.StatusRequestTimeout)
		return
	}
	http.Error(w, "cannot read the request body", http.StatusBadRequest)
}

// malformedMessage answers 400 to a body go-sdk is not given (see
// mcpserver.ShapeProblem) with a JSON-RPC error, -32600 with the request's id when
// it was found, so that the client's call fails at once.
func malformedMessage(w http.ResponseWriter, id json.RawMessage, why string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(append(errorResponse(id, invalidRequest(why)), '\n'))
}
