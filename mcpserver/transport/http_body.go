package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/hubsnap/hubsnap/mcpserver"
)

// The body of a POST to /mcp, read once by the transport before go-sdk
// reads it again (layer 3 of middleware.go): bounded in size and time,
// of a shape go-sdk may be given, and its JSON-RPC messages noted for the
// log, the era (http_route.go) and the scopes an OAuth token lacks
// (http_access.go).

// rpcMessage is what hubsnap reads of a JSON-RPC message in a POST body:
// for the log, the era of the protocol (http_route.go) and the scopes it
// needs (scopes.go). go-sdk decodes the body again, and checks it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// peek reads a POST body (at most limit bytes: 413 beyond; within the
// time given: 408 beyond; of a shape go-sdk may be given, mcpserver.ShapeProblem:
// 400 otherwise; and then false), notes its JSON-RPC methods and
// tool, puts it back for MCP and returns its messages (none when it is
// not JSON-RPC).
func (rec *requestRecord) peek(w http.ResponseWriter, r *http.Request, limit int64, within time.Duration) ([]rpcMessage, bool) {
	// A read deadline on the connection, for this body only: an
	// http.Server ReadTimeout would cut the long GET streams too.
	rc := http.NewResponseController(w)
	timed := rc.SetReadDeadline(time.Now().Add(within)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	r.Body.Close()
	if err != nil {
		badBody(w, err, limit, within)
		return nil, false
	}
	if timed {
		rc.SetReadDeadline(time.Time{})
	}
	rec.status.unread = false
	if why := mcpserver.ShapeProblem(body); why != "" {
		malformedMessage(w, idOf(body), why)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msgs []rpcMessage
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		json.Unmarshal(b, &msgs)
	} else {
		var m rpcMessage
		if json.Unmarshal(b, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, m := range msgs {
		method := m.Method
		if method == "" {
			method = "response"
		}
		rec.rpc = append(rec.rpc, safeField(method))
		if m.Method == "tools/call" && rec.tool == "" {
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(m.Params, &p)
			rec.tool = safeField(p.Name)
		}
	}
	return msgs, true
}
