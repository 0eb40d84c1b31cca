package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// Every mapping of hubsnap's error codes (store.Code) to what an MCP
// client sees is in this file: tool errors and the JSON-RPC errors of the
// server. What the transports answer themselves (JSON-RPC errors of a
// message go-sdk is not given, HTTP statuses) is in package transport
// (errors.go).

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

// The JSON-RPC errors the server answers itself, besides go-sdk's own:
// every *jsonrpc.Error the package makes is made below.

// methodNotFound is the error of a method hubsnap does not answer.
func methodNotFound(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: why}
}

// internalRPCError is the error of a handler that failed inside (logged
// by the caller): no detail reaches the client.
func internalRPCError() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
}

// CodeForbidden is the JSON-RPC error code of a resource read, a
// subscription or a completion that the token's scopes do not cover, and
// of any request an OAuth token's scopes do not cover, in the body of the
// HTTP 403 (package transport). (Tools answer an issued token with a tool
// error with code FORBIDDEN instead.) JSON-RPC leaves
// -32000 to -32099 to servers; MCP names no code for this.
const CodeForbidden = -32001

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
	return &jsonrpc.Error{Code: CodeForbidden, Message: forbiddenMessage(granted, []access.Scope{need})}
}

func forbiddenMessage(granted []string, need []access.Scope) string {
	names := make([]string, len(need))
	for i, n := range need {
		names[i] = string(n)
	}
	return fmt.Sprintf("this token's scopes (%s) do not include %s", strings.Join(granted, ", "), strings.Join(names, " or "))
}

// tooManySubscriptions is the JSON-RPC error of a subscription beyond
// MaxSubscriptions in one session.
func tooManySubscriptions() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"this session holds %d subscriptions, the most it may; unsubscribe from some first", MaxSubscriptions)}
}
