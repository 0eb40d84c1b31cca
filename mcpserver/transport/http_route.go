package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

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
// So each request goes to the handler of its era (eraOf): one without a
// session that says it is of 2026-07-28 or later to the stateless
// handler, every other to the stateful one. Both serve the same
// mcp.Server, so tools, resources and completions are the same.
//
// The era is read from the protocol version the request states, never
// from a header that merely exists: clients of 2025-11-25 send the
// Mcp-Method and Mcp-Name headers of SEP-2243 too (mcp-remote 0.15.1 does,
// on its initialize), and such a client sent to the stateless handler
// would get no session, so no notification and no subscription.

// protocol2026 is the first protocol version without sessions.
const protocol2026 = "2026-07-28"

// era is what eraOf found: whether a request is of protocol 2026-07-28 or
// later, and what said so, for messages.
type era struct {
	modern bool
	// why names what decided, e.g. `its Mcp-Protocol-Version header
	// (2025-11-25)`; "" when the request said nothing of its version.
	why string
}

// eraOf decides the era of a POST (its headers and the JSON-RPC messages of
// its body) from the protocol version it states, in this order:
//
//  1. the Mcp-Protocol-Version header, when it holds a version;
//  2. the protocol version in a request's _meta (2026-07-28's per-request
//     version);
//  3. initialize, with neither: the handshake of 2025-11-25 and older,
//     whatever version its params propose (go-sdk negotiates 2026-07-28
//     down to 2025-11-25 in it), so the session era (an initialize that
//     says 2026-07-28 by 1 or 2 is of that era, where initialize is a
//     removed method: -32601);
//  4. a method of 2026-07-28 only: server/discover, subscriptions/listen;
//  5. else the session era: a client of 2025-03-26 states no version after
//     initialize, and one of 2025-06-18 or 2025-11-25 sends the header.
func eraOf(h http.Header, msgs []rpcMessage) era {
	if v := strings.TrimSpace(h.Get("Mcp-Protocol-Version")); isVersion(v) {
		return era{modern: v >= protocol2026, why: "its Mcp-Protocol-Version header (" + v + ")"}
	}
	for _, m := range msgs {
		if v := metaVersion(m.Params); isVersion(v) {
			return era{modern: v >= protocol2026, why: "the protocol version in its _meta (" + v + ")"}
		}
	}
	for _, m := range msgs {
		if m.Method == "initialize" {
			return era{why: "initialize, the handshake of protocol 2025-11-25 and older"}
		}
	}
	for _, m := range msgs {
		switch m.Method {
		case "server/discover", "subscriptions/listen":
			return era{modern: true, why: m.Method + ", a method of protocol " + protocol2026}
		}
	}
	return era{}
}

// isVersion reports whether v has the form of an MCP protocol version, a
// date: YYYY-MM-DD.
func isVersion(v string) bool {
	if len(v) != len("2006-01-02") {
		return false
	}
	for i, c := range []byte(v) {
		switch {
		case i == 4 || i == 7:
			if c != '-' {
				return false
			}
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// metaVersion is the protocol version in a request's params._meta, "" when
// it has none.
func metaVersion(params json.RawMessage) string {
	if len(params) == 0 || !strings.Contains(string(params), mcp.MetaKeyProtocolVersion) {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v) != nil {
		return ""
	}
	return v
}

// sessionlessSubscriptions answers resources/subscribe and unsubscribe
// of a request without a session over HTTP (the stateless handler) with an
// error that says why it has none and what works instead: go-sdk would
// accept the subscription for a session that ends with the request, and no
// notification would ever come. A client of 2026-07-28 subscribes with
// subscriptions/listen instead, which works without a session.
//
// Only a server with --stateless gets there today: go-sdk itself answers
// a 2026-07-28 resources/subscribe -32601, and a session-era request
// without a session goes to the stateful handler, which refuses it.
// Should another way in appear, the reason stays true: it is the one
// serveMCP noted for the request (sessionlessReason).
func (h *httpHandler) sessionlessSubscriptions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/subscribe" && method != "resources/unsubscribe" {
			return next(ctx, method, req)
		}
		extra := req.GetExtra()
		if extra == nil || extra.Header == nil || req.GetSession().ID() != "" {
			return next(ctx, method, req)
		}
		why := "this request has no session, so no notification could reach it; open one with initialize " +
			"(protocol 2025-11-25), or use subscriptions/listen (protocol 2026-07-28)"
		if rec := h.log.record(req); rec != nil {
			if r := rec.sessionless(); r != "" {
				why = r
			}
		}
		return nil, invalidRequest(method + ": " + why)
	}
}

// sessionlessReason says why a request goes to the stateless handler, and
// what a client that wants notifications does instead.
func sessionlessReason(stateless bool, e era) string {
	if stateless {
		return "this server keeps no sessions (serve --stateless), so it cannot send notifications to a client " +
			"of protocol 2025-11-25 or older; use protocol 2026-07-28 (subscriptions/listen), or a server without --stateless"
	}
	return "this request is of protocol 2026-07-28 or later (so says " + e.why + "), which has no sessions: " +
		"subscribe with subscriptions/listen"
}

// setSessionless notes why the request goes without a session.
func (rec *requestRecord) setSessionless(why string) {
	rec.mu.Lock()
	rec.noSession = why
	rec.mu.Unlock()
}

// sessionless is why the request goes without a session, "" when it has
// one or will open one.
func (rec *requestRecord) sessionless() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.noSession
}
