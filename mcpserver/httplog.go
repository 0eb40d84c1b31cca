package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The request log: one line per HTTP request, at Info, once it is done:
//
//	msg=request method=POST rpc=tools/call tool=schema_get_table status=200 result=NOT_FOUND duration=1.2ms token=alice session=4GQ2LX
//
// rpc and tool come from the request body; result is what MCP answered
// (ok, a tool error's code, or a JSON-RPC error code), recorded by the
// noteResult middleware, which finds the line's record through an
// internal header. The token's name is logged, never the token; the
// session by its first six characters.

// requestRefHeader carries a request's log record reference from the HTTP
// handler to the MCP middleware (go-sdk passes request headers on, not the
// request context). A client's own value is dropped.
const requestRefHeader = "Hubsnap-Request-Ref"

// requestRecord is what the log line of one request says.
type requestRecord struct {
	ref     string // the key in Server.requests
	start   time.Time
	method  string // HTTP
	path    string
	status  *statusWriter
	session string

	mu     sync.Mutex
	rpc    []string
	tool   string
	result []string
	token  string
}

func (rec *requestRecord) setToken(name string) {
	rec.mu.Lock()
	rec.token = name
	rec.mu.Unlock()
}

func (rec *requestRecord) note(result string) {
	rec.mu.Lock()
	rec.result = append(rec.result, result)
	rec.mu.Unlock()
}

// beginRequest starts the record of r and returns w wrapped to see the
// status. The record is found by the MCP middleware until endRequest.
func (s *Server) beginRequest(w http.ResponseWriter, r *http.Request) (*requestRecord, http.ResponseWriter) {
	sw := &statusWriter{ResponseWriter: w}
	rec := &requestRecord{ref: strconv.FormatUint(s.requestSeq.Add(1), 36), start: time.Now(), method: r.Method,
		path: r.URL.Path, status: sw, session: r.Header.Get("Mcp-Session-Id")}
	r.Header.Set(requestRefHeader, rec.ref)
	s.requests.Store(rec.ref, rec)
	return rec, sw
}

// endRequest logs the request's line.
func (s *Server) endRequest(log *slog.Logger, rec *requestRecord) {
	s.requests.Delete(rec.ref)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	session := rec.session
	if session == "" {
		session = rec.status.Header().Get("Mcp-Session-Id") // a new one
	}
	if len(session) > 6 {
		session = session[:6]
	}
	attrs := []slog.Attr{slog.String("method", rec.method)}
	if rec.path != mcpPath {
		attrs = append(attrs, slog.String("path", safeField(rec.path)))
	}
	if len(rec.rpc) > 0 {
		attrs = append(attrs, slog.String("rpc", strings.Join(rec.rpc, ",")))
	}
	if rec.tool != "" {
		attrs = append(attrs, slog.String("tool", rec.tool))
	}
	status := rec.status.code
	if status == 0 {
		status = http.StatusOK
	}
	attrs = append(attrs, slog.Int("status", status))
	if len(rec.result) > 0 {
		attrs = append(attrs, slog.String("result", strings.Join(rec.result, ",")))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(rec.start)))
	if rec.token != "" {
		attrs = append(attrs, slog.String("token", rec.token))
	}
	if session != "" {
		attrs = append(attrs, slog.String("session", session))
	}
	log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
}

// logged wraps a plain handler with the request log.
func (s *Server) logged(opts HTTPOptions, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec, w := s.beginRequest(w, r)
		defer s.endRequest(opts.Log, rec)
		h(w, r)
	}
}

// peek reads a POST body (at most limit bytes: 413 beyond, and false) to
// note its JSON-RPC methods and tool, and puts it back for MCP.
func (rec *requestRecord) peek(w http.ResponseWriter, r *http.Request, limit int64) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	r.Body.Close()
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			http.Error(w, "request body over "+strconv.FormatInt(limit, 10)+" bytes", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
		}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	type message struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var msgs []message
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		json.Unmarshal(b, &msgs)
	} else {
		var m message
		if json.Unmarshal(b, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, m := range msgs {
		if m.Method == "" {
			m.Method = "response"
		}
		rec.rpc = append(rec.rpc, safeField(m.Method))
		if m.Method == "tools/call" && rec.tool == "" {
			rec.tool = safeField(m.Params.Name)
		}
	}
	return true
}

// safeField keeps a client's string short and printable for the log.
func safeField(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// noteResult is the MCP middleware that records each request's result in
// its HTTP request's log record.
func (s *Server) noteResult(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		extra := req.GetExtra()
		if extra == nil || extra.Header == nil {
			return res, err
		}
		if v, ok := s.requests.Load(extra.Header.Get(requestRefHeader)); ok {
			v.(*requestRecord).note(resultOf(res, err))
		}
		return res, err
	}
}

// resultOf names an MCP answer for the log: ok, a tool error's code, or a
// JSON-RPC error's code.
func resultOf(res mcp.Result, err error) string {
	if err != nil {
		if je, ok := errors.AsType[*jsonrpc.Error](err); ok {
			return strconv.FormatInt(je.Code, 10)
		}
		return "error"
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
		if len(r.Content) == 1 {
			if t, ok := r.Content[0].(*mcp.TextContent); ok {
				var e struct {
					Error toolError `json:"error"`
				}
				if json.Unmarshal([]byte(t.Text), &e) == nil && e.Error.Code != "" {
					return string(e.Error.Code)
				}
			}
		}
		return "tool_error"
	}
	return "ok"
}

// statusWriter remembers the status written. Unwrap lets go-sdk's
// http.ResponseController flush the streams through it.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
