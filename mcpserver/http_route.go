package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Two eras of the protocol share /mcp. Up to 2025-11-25 a client opens a
// session with initialize and sends its id (Mcp-Session-Id) with every
// request after; go-sdk serves that era only with its stateful handler.
// From 2026-07-28 (SEP-2575) there is no session: a client probes with
// server/discover and then sends each request on its own, naming the
// protocol version in the Mcp-Protocol-Version header and in the request's
// _meta; go-sdk serves that era only with its stateless handler (its
// stateful one answers those requests -32022, all but server/discover,
// which it answers with the old versions only).
//
// So each request goes to the handler of its era: one without a session
// that says it is of 2026-07-28 or later (isModern) to the stateless
// handler, every other to the stateful one. Both serve the same
// mcp.Server, so tools, resources and completions are the same.

// protocol2026 is the first protocol version without sessions.
const protocol2026 = "2026-07-28"

// isModern reports whether a request (its headers and the JSON-RPC
// messages of its body) is of protocol 2026-07-28 or later: its
// Mcp-Protocol-Version header names such a version, it carries an
// Mcp-Method header (which only such clients send), or its body holds
// server/discover or subscriptions/listen (methods of that protocol only),
// or a request whose _meta names the protocol version.
func isModern(h http.Header, msgs []rpcMessage) bool {
	if v := strings.TrimSpace(h.Get("Mcp-Protocol-Version")); v >= protocol2026 {
		return true
	}
	if h.Get("Mcp-Method") != "" {
		return true
	}
	for _, m := range msgs {
		switch m.Method {
		case "server/discover", "subscriptions/listen":
			return true
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Meta[mcp.MetaKeyProtocolVersion] != nil {
			return true
		}
	}
	return false
}

// statelessSubscriptions answers resources/subscribe and unsubscribe of a
// request without a session over HTTP (the stateless handler, for a client
// of protocol 2025-11-25 or older) with an error that says why: go-sdk
// would accept the subscription for a session that ends with the request,
// and no notification would ever come. A client of 2026-07-28 subscribes
// with subscriptions/listen instead, which works without a session.
func statelessSubscriptions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "resources/subscribe" || method == "resources/unsubscribe" {
			extra := req.GetExtra()
			if extra != nil && extra.Header != nil && req.GetSession().ID() == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: method +
					": this server keeps no sessions (serve --stateless), so it cannot send notifications; " +
					"use protocol 2026-07-28 (subscriptions/listen), or a server without --stateless"}
			}
		}
		return next(ctx, method, req)
	}
}
