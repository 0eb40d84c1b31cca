package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// Every mapping of hubsnap's error codes (store.Code) to what a client
// sees is in this file: tool errors, JSON-RPC errors and HTTP statuses.

// toolError is a tool failure as clients see it (docs/tools.md): a result
// with isError set whose text is {"error":{"code":"...","message":"..."}}.
// go-sdk turns an error returned by a typed handler into exactly that
// result, with err.Error() as its text.
type toolError struct {
	Code    store.Code `json:"code"`
	Message string     `json:"message"`
}

func (e *toolError) Error() string {
	b, _ := json.Marshal(struct {
		Error *toolError `json:"error"`
	}{e})
	return string(b)
}

// fail maps err to a tool error. Domain errors keep their code and message;
// anything else is logged and reaches the client only as INTERNAL.
func (s *Server) fail(ctx context.Context, tool string, err error) error {
	if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
		return &toolError{Code: store.Internal, Message: "the call was cancelled"}
	}
	if code := store.ErrorCode(err); code != store.Internal {
		return &toolError{Code: code, Message: store.ErrorMessage(err)}
	}
	s.log.Error("tool failed", "tool", tool, "err", err)
	s.noteDamage(err)
	return &toolError{Code: store.Internal, Message: "internal error; the server log has the details"}
}

func invalid(format string, args ...any) error {
	return store.Errorf(store.InvalidArgument, format, args...)
}

// resourceError maps a store error to a JSON-RPC error: an unknown table or
// logic is -32602 (as for any unknown resource), anything else keeps its
// code in the message.
func (s *Server) resourceError(ctx context.Context, uri string, err error) error {
	switch store.ErrorCode(err) {
	case store.NotFound:
		return mcp.ResourceNotFoundError(uri)
	case store.Internal:
		if ctx.Err() == nil {
			s.log.Error("resource read failed", "uri", uri, "err", err)
			s.noteDamage(err)
		}
		return internalRPCError()
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("%s: %s", store.ErrorCode(err), store.ErrorMessage(err))}
}

// The JSON-RPC errors hubsnap answers itself, besides go-sdk's own: every
// *jsonrpc.Error the package makes is made below.

// notJSON is the error of a line that is not JSON (stdio).
func notJSON() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the line is not JSON"}
}

// invalidRequest is the error of a message go-sdk is not given, or of a
// request the transport cannot serve as sent.
func invalidRequest(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: why}
}

// methodNotFound is the error of a method hubsnap does not answer.
func methodNotFound(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: why}
}

// internalRPCError is the error of a handler that failed inside (logged
// by the caller): no detail reaches the client.
func internalRPCError() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
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

// codeForbidden is the JSON-RPC error code of a resource read, a
// subscription or a completion that the token's scopes do not cover, and
// of any request an OAuth token's scopes do not cover, in the body of the
// HTTP 403 (forbiddenResponse). (Tools answer an issued token with a tool
// error with code FORBIDDEN instead.) JSON-RPC leaves
// -32000 to -32099 to servers; MCP names no code for this.
const codeForbidden = -32001

// forbiddenResponse is the JSON-RPC error response (codeForbidden) in the
// body of an HTTP 403 for a request outside an OAuth token's scopes, with
// the scope needed in its data.
func forbiddenResponse(id json.RawMessage, message string, need access.Scope) any {
	type data struct {
		Scope access.Scope `json:"scope"`
	}
	return struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: codeForbidden, Message: message, Data: mustJSON(data{need})}}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// forbiddenTool is the FORBIDDEN tool error of a call outside the token's
// scopes.
func forbiddenTool(tool string, granted []string, need []access.Scope) *mcp.CallToolResult {
	msg := fmt.Sprintf("%s: %s", tool, forbiddenMessage(granted, need))
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: (&toolError{Code: store.Forbidden, Message: msg}).Error()}}}
}

// forbiddenResource is the JSON-RPC error of a resource outside the
// token's scopes.
func forbiddenResource(granted []string, need access.Scope) error {
	return &jsonrpc.Error{Code: codeForbidden, Message: forbiddenMessage(granted, []access.Scope{need})}
}

func forbiddenMessage(granted []string, need []access.Scope) string {
	names := make([]string, len(need))
	for i, n := range need {
		names[i] = string(n)
	}
	return fmt.Sprintf("this token's scopes (%s) do not include %s", strings.Join(granted, ", "), strings.Join(names, " or "))
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
// (codeForbidden), so that a client reads it as that call's failure and
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
// shapeProblem) with a JSON-RPC error, -32600 with the request's id when
// it was found, so that the client's call fails at once.
func malformedMessage(w http.ResponseWriter, id json.RawMessage, why string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(append(errorResponse(id, invalidRequest(why)), '\n'))
}

// tooManySubscriptions is the JSON-RPC error of a subscription beyond
// MaxSubscriptions in one session.
func tooManySubscriptions() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"this session holds %d subscriptions, the most it may; unsubscribe from some first", MaxSubscriptions)}
}
