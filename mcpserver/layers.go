package mcpserver

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server's own MCP middleware: what every request goes through on any
// transport (stdio, Streamable HTTP, in-memory), below the transport's own
// layers. The whole order, the HTTP layers and the transport's MCP layers
// above these, is written once in package transport (middleware.go).

// middleware is the server's MCP middleware, outermost first; New installs
// it. A transport adds its own layers above it (go-sdk's
// AddReceivingMiddleware wraps what is there).
func (s *Server) middleware() []mcp.Middleware {
	return []mcp.Middleware{
		s.recoverPanics,    // a panic answers -32603 and the server keeps serving
		s.cancelOnShutdown, // Shutdown cancels every call in flight
		noPrompts,          // prompts/* is -32601: hubsnap has none
		s.checkScopes,      // the token's scopes: FORBIDDEN or -32001 (scopes.go)
		argumentErrors,     // go-sdk's argument errors in hubsnap's shape (arguments.go)
		s.boundArguments,   // arguments over their schema's bounds, before decoding (bounds.go)
		nullArguments,      // an argument that is null is left out (arguments.go)
		s.keepCore,         // innermost: keeps go-sdk's own handler (resources.go)
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
