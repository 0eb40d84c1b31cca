package transport

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth"
)

// Defaults of HTTPOptions.
const (
	// DefaultSessionTimeout is long: a session costs little, an editor
	// left open overnight should find its session the next morning, and
	// most clients do not open a new one when theirs is gone. A client
	// that holds its GET stream keeps its session in use anyway.
	DefaultSessionTimeout = 24 * time.Hour
	DefaultMaxBodyBytes   = mcpserver.MaxRequestBytes
	DefaultMaxSessions    = 1000
	// DefaultBodyTimeout bounds the reading of a request body: 1 MiB
	// (DefaultMaxBodyBytes) in 30 s is 35 KB/s.
	DefaultBodyTimeout = 30 * time.Second
	// shutdownGrace bounds how long ServeStreamable waits, once asked to
	// stop, for requests in flight.
	shutdownGrace = 5 * time.Second
)

// Paths served over HTTP.
const (
	mcpPath = "/mcp"
	// metadataPath is where RFC 9728 puts the protected-resource metadata
	// of the resource /mcp (served with OAuth only).
	metadataPath = "/.well-known/oauth-protected-resource" + mcpPath
)

// HTTPOptions configure the Streamable HTTP server.
//
// Access is controlled one way or the other (docs/team.md): issued tokens
// (Tokens) or OAuth 2.1 access tokens (OAuth). Setting both is a
// programming error and makes HTTPHandler panic.
type HTTPOptions struct {
	// Tokens are the tokens that may call. Once any was issued (see
	// access.Keeper.Issued), every request needs one. Before that (or with
	// a nil Keeper and no OAuth), only requests that arrive on a loopback
	// address are served, without auth.
	Tokens *access.Keeper
	// OAuth, when set, makes the server an OAuth 2.1 resource server: every
	// request needs an access token that OAuth verifies (401 otherwise),
	// and a request outside the token's scopes is answered 403 with the
	// insufficient_scope challenge (step-up).
	OAuth *oauth.Verifier
	// Stateless serves every request on its own, without sessions (go-sdk's
	// stateless Streamable HTTP): replicas need no sticky sessions, and
	// nothing is sent to a client but answers to its requests and, for
	// protocol 2026-07-28, what its subscriptions/listen streams asked for.
	// When false, clients with sessions (protocol up to 2025-11-25) and
	// session-less 2026-07-28 clients are both served (see eraOf).
	Stateless bool
	// SessionTimeout closes a session once it has been idle this long:
	// no request in flight and no GET stream open (http_sessions.go);
	// DefaultSessionTimeout when zero.
	SessionTimeout time.Duration
	// MaxBodyBytes limits a request body (413 beyond); DefaultMaxBodyBytes
	// when zero.
	MaxBodyBytes int64
	// BodyTimeout bounds the time to read a request body, from when its
	// request was let in (408 beyond); DefaultBodyTimeout when zero. A
	// request without valid credentials is refused before its body is
	// read.
	BodyTimeout time.Duration
	// MaxSessions limits the sessions open at once, exactly; at the limit
	// a new session evicts one by fair share (http_sessions.go).
	// DefaultMaxSessions when zero.
	MaxSessions int
	// Log receives one line per request (at Info), never a token.
	Log *slog.Logger
}

func (o *HTTPOptions) defaults() {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// HTTPHandler returns the Streamable HTTP handler of srv: MCP at /mcp (DNS-rebinding
// protection on, a body limit, access as opts say), with OAuth the RFC 9728
// metadata of /mcp, and a request log line for each.
//
// Both eras of the protocol are served at /mcp: a client with a session
// (Mcp-Session-Id, protocol 2025-11-25 and older) by go-sdk's stateful
// handler, a session-less 2026-07-28 request by its stateless one. With
// opts.Stateless, every request goes to the stateless handler.
//
// It adds the HTTP layers' MCP middleware to srv (middleware.go): serve srv
// with one HTTPHandler.
func HTTPHandler(srv *mcpserver.Server, opts HTTPOptions) http.Handler {
	opts.defaults()
	if opts.OAuth != nil && opts.Tokens != nil {
		panic("transport: HTTPOptions.OAuth and HTTPOptions.Tokens are exclusive")
	}
	getServer := func(*http.Request) *mcp.Server { return srv.MCP() }
	// DNS-rebinding protection stays on (go-sdk's default): a request that
	// reaches a loopback address with another Host gets 403.
	crossOrigin := http.NewCrossOriginProtection()
	h := &httpHandler{server: srv, opts: opts, sessions: newSessionTable(opts, srv.DropSubscriptions),
		log: &requestLog{log: opts.Log}}
	srv.MCP().AddReceivingMiddleware(h.middleware()...)
	h.stateless = crossOrigin.Handler(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: opts.MaxBodyBytes,
		Logger:              srv.Log(),
		// A 2026-07-28 request is the whole exchange: once its client is
		// gone, stop working on it.
		PropagateRequestCancellation: true,
	}))
	if !opts.Stateless {
		// No SessionTimeout: go-sdk's counts POSTs only; the session table
		// closes idle sessions (http_sessions.go).
		h.stateful = crossOrigin.Handler(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
			MaxRequestBodyBytes: opts.MaxBodyBytes,
			Logger:              srv.Log(),
		}))
	}
	mux := http.NewServeMux()
	mux.Handle(mcpPath, h)
	// The protected-resource metadata sends a client to the authorization
	// server it names: with OAuth only. Issued tokens come from `hubsnap
	// token create`, not from an OAuth flow, and a document naming no
	// authorization server sends clients into a flow that cannot work.
	if opts.OAuth != nil {
		// At the path RFC 9728 derives from the resource identifier, and at
		// /mcp's own (a proxy may serve /mcp under another path).
		meta := h.log.logged(opts.OAuth.MetadataHandler().ServeHTTP)
		mux.Handle(opts.OAuth.MetadataPath(), meta)
		if opts.OAuth.MetadataPath() != metadataPath {
			mux.Handle(metadataPath, meta)
		}
	}
	mux.HandleFunc("/", h.log.logged(func(w http.ResponseWriter, r *http.Request) {
		if opts.OAuth == nil && isOAuthPath(r.URL.Path) {
			noOAuth(w) // a client that tries OAuth anyway is told where tokens come from
			return
		}
		notMCP(w)
	}))
	return mux
}

// isOAuthPath reports whether a client asks for OAuth at path: discovery
// (RFC 9728, RFC 8414, OpenID) or the endpoints a client falls back to
// without it (dynamic client registration, authorization, token).
func isOAuthPath(path string) bool {
	for _, p := range []string{"/.well-known/oauth-", "/.well-known/openid-configuration", "/register", "/authorize", "/token"} {
		if strings.HasPrefix(path, p) || strings.HasPrefix(path, mcpPath+p) {
			return true
		}
	}
	return false
}

// httpHandler guards /mcp (http_access.go) and hands each request to the
// stateful or the stateless MCP handler (serveMCP).
type httpHandler struct {
	server              *mcpserver.Server
	log                 *requestLog // the records of the requests in flight, and their log lines
	opts                HTTPOptions
	stateful, stateless http.Handler  // stateful is nil with opts.Stateless
	sessions            *sessionTable // the stateful handler's sessions

	fileErr atomic.Pointer[string] // the token file error logged last
}

// arrivedOnLoopback reports whether the request reached the server on a
// loopback address, so came from this machine.
func arrivedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOf is the host of a host:port address (the address when it has no
// port).
func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// IsLoopback reports whether a listening address (host:port) names only
// loopback interfaces: 127.0.0.0/8, ::1 or localhost. An empty host means
// every interface and is not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeStreamable serves HTTPHandler(srv, opts) on ln until ctx ends, then shuts down
// cleanly: calls in flight are cancelled, every session is closed (which
// ends their GET streams, that would otherwise hold Shutdown), and
// requests get up to five seconds to finish.
func ServeStreamable(ctx context.Context, srv *mcpserver.Server, ln net.Listener, opts HTTPOptions) error {
	opts.defaults()
	hs := &http.Server{
		Handler:           HTTPHandler(srv, opts),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(srv.Log().Handler(), slog.LevelWarn),
		// No WriteTimeout: GET streams last as long as their sessions.
	}
	hs.RegisterOnShutdown(func() { closeSessions(srv) })
	fresh := &freshConns{conns: map[net.Conn]struct{}{}}
	hs.ConnState = fresh.track
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		closeSessions(srv)
		return err
	case <-ctx.Done():
	}
	srv.Shutdown()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(sctx) }()
	fresh.closeAll()
	err := <-shut
	if errors.Is(err, context.DeadlineExceeded) {
		srv.Log().Warn("requests still running at shutdown were cut off")
		err = hs.Close()
	}
	// RegisterOnShutdown's call runs in its own goroutine; close what it has
	// not closed yet, so every session is gone when this returns.
	closeSessions(srv)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// freshConns are the connections that have not sent a request yet. At
// shutdown they have nothing to finish, yet http.Server.Shutdown counts
// them as busy for their first five seconds (a client's spare connection,
// a load balancer's probe): closeAll closes them, and those opened after.
type freshConns struct {
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	stopping bool
}

// track is the http.Server's ConnState hook.
func (f *freshConns) track(c net.Conn, state http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case state == http.StateNew && f.stopping:
		c.Close()
	case state == http.StateNew:
		f.conns[c] = struct{}{}
	default:
		delete(f.conns, c)
	}
}

// closeAll closes the connections without a request, now and from now on.
func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopping = true
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
}

// closeSessions closes every open session of srv.
func closeSessions(srv *mcpserver.Server) {
	for ss := range srv.MCP().Sessions() {
		ss.Close()
	}
}
