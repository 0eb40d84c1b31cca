package transport

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The request log: one line per HTTP request, at Info, once it is done:
//
//	msg=request method=POST rpc=tools/call tool=schema_get_table status=200 result=NOT_FOUND duration=1.2ms token=alice session=4GQ2LX
//	msg=request method=POST rpc=tools/call tool=logic_list status=403 denied="insufficient scope: logic:read" duration=0.3ms sub=alice
//	msg=request method=POST status=401 denied=expired duration=0.2ms
//
// rpc and tool come from the request body; result is what MCP answered
// (ok, a tool error's code, or a JSON-RPC error code), recorded by the
// noteResult middleware, which finds the line's record through an
// internal header. denied says why access was refused before MCP: the
// reason an OAuth token was refused (401), or the scope it lacks (403).
// An issued token is named by its name (token=), an OAuth token by its
// subject (sub=); the token itself is never logged. The session is
// logged by its first six characters.

// requestRefHeader carries a request's log record reference from the HTTP
// handler to the MCP middleware (go-sdk passes request headers on, not the
// request context). A client's own value is dropped.
const requestRefHeader = "Hubsnap-Request-Ref"

// requestLog keeps the record of each HTTP request in flight, found by
// the MCP middleware through requestRefHeader, and logs each one's line
// when it is done.
type requestLog struct {
	log      *slog.Logger  // HTTPOptions.Log
	requests sync.Map      // ref -> *requestRecord
	seq      atomic.Uint64 // the last ref given
}

// record is the record of the request that req (an MCP request over
// HTTP) came in, or nil.
func (l *requestLog) record(req mcp.Request) *requestRecord {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil
	}
	if v, ok := l.requests.Load(extra.Header.Get(requestRefHeader)); ok {
		return v.(*requestRecord)
	}
	return nil
}

// requestRecord is what the log line of one request says.
type requestRecord struct {
	ref     string // the key in requestLog.requests
	start   time.Time
	method  string // HTTP
	path    string
	status  *statusWriter
	session string

	mu     sync.Mutex
	rpc    []string
	tool   string
	result []string
	token  string // an issued token's name
	hash   string // its hash (access.Token.Hash), never logged
	sub    string // an OAuth token's subject, for the log
	who    string // the token or subject as the session table knows it
	denied string
	// why the request goes without a session (sessionlessReason); "" when
	// it goes to the stateful handler
	noSession string
	// The place a new session takes, bound by the initialize it carries
	// (bindSession).
	sessions *sessionTable
	slot     *reservation
}

func (rec *requestRecord) setToken(name, hash string) {
	rec.mu.Lock()
	rec.token, rec.hash, rec.who = name, hash, ownerOf(name, "", "")
	rec.mu.Unlock()
}

func (rec *requestRecord) setSubject(sub string) {
	rec.mu.Lock()
	rec.sub, rec.who = safeField(sub), ownerOf("", sub, "")
	rec.mu.Unlock()
}

// owner names who sent r, for the session table: its token, its subject,
// or else its client's address.
func (rec *requestRecord) owner(r *http.Request) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.who != "" {
		return rec.who
	}
	return ownerOf("", "", r.RemoteAddr)
}

// tokenHash is the hash of the issued token the request carries, if any.
func (rec *requestRecord) tokenHash() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.hash
}

// reserve notes the place the request took for a new session.
func (rec *requestRecord) reserve(t *sessionTable, res *reservation) {
	rec.mu.Lock()
	rec.sessions, rec.slot = t, res
	rec.mu.Unlock()
}

// bindSession makes the place the request took the session ss.
func (rec *requestRecord) bindSession(ss *mcp.ServerSession) {
	rec.mu.Lock()
	t, res := rec.sessions, rec.slot
	rec.mu.Unlock()
	if res != nil {
		t.bind(res, ss)
	}
}

// deny notes why access was refused.
func (rec *requestRecord) deny(why string) {
	rec.mu.Lock()
	rec.denied = why
	rec.mu.Unlock()
}

func (rec *requestRecord) note(result string) {
	rec.mu.Lock()
	rec.result = append(rec.result, result)
	rec.mu.Unlock()
}

// begin starts the record of r and returns w wrapped to see the status.
// The record is found by the MCP middleware until end.
func (l *requestLog) begin(w http.ResponseWriter, r *http.Request) (*requestRecord, http.ResponseWriter) {
	sw := &statusWriter{ResponseWriter: w, unread: r.Body != nil && r.Body != http.NoBody}
	rec := &requestRecord{ref: strconv.FormatUint(l.seq.Add(1), 36), start: time.Now(), method: r.Method,
		path: r.URL.Path, status: sw, session: r.Header.Get("Mcp-Session-Id")}
	r.Header.Set(requestRefHeader, rec.ref)
	l.requests.Store(rec.ref, rec)
	return rec, sw
}

// end logs the request's line.
func (l *requestLog) end(rec *requestRecord) {
	l.requests.Delete(rec.ref)
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
	if rec.denied != "" {
		attrs = append(attrs, slog.String("denied", rec.denied))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(rec.start)))
	if rec.token != "" {
		attrs = append(attrs, slog.String("token", rec.token))
	}
	if rec.sub != "" {
		attrs = append(attrs, slog.String("sub", rec.sub))
	}
	if session != "" {
		attrs = append(attrs, slog.String("session", session))
	}
	l.log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
}

// logged wraps a plain handler with the request log.
func (l *requestLog) logged(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec, w := l.begin(w, r)
		defer l.end(rec)
		h(w, r)
	}
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
func (l *requestLog) noteResult(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if rec := l.record(req); rec != nil {
			rec.note(resultOf(res, err))
		}
		return res, err
	}
}

// bindSession is the MCP middleware that tells the session table of the
// session an initialize over HTTP opened (see requestRecord.bindSession),
// before its answer (and so its Mcp-Session-Id) reaches the client. It
// binds even a failed initialize: go-sdk keeps such a session open, so it
// must be counted.
func (l *requestLog) bindSession(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "initialize" {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		if rec := l.record(req); rec != nil {
			rec.bindSession(ss)
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
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
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
//
// An error answered before the request's body was read closes the
// connection at once: net/http would otherwise read what is left of the
// body (up to 256 KiB) before it sends the answer, and again when the
// handler ends, so that a client sending its body slowly, a byte at a
// time, would hold the connection, its 401 unsent, for as long as it
// likes. Connection: close skips the first read, a read deadline in the
// past cuts the second short.
type statusWriter struct {
	http.ResponseWriter
	code   int
	unread bool // the request has a body that peek has not read
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
		if code >= 400 && w.unread {
			w.Header().Set("Connection", "close")
			http.NewResponseController(w.ResponseWriter).SetReadDeadline(time.Now())
		}
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
