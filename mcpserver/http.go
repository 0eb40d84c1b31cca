package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// Defaults of HTTPOptions.
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxBodyBytes   = 1 << 20
	DefaultMaxSessions    = 1000
	// shutdownGrace bounds how long ServeStreamable waits, once asked to
	// stop, for requests in flight.
	shutdownGrace = 5 * time.Second
)

// Paths served over HTTP.
const (
	mcpPath = "/mcp"
	// metadataPath is where RFC 9728 puts the protected-resource metadata
	// of the resource /mcp.
	metadataPath = "/.well-known/oauth-protected-resource" + mcpPath
)

// HTTPOptions configure the Streamable HTTP server.
type HTTPOptions struct {
	// Tokens are the tokens that may call. Once any was issued (see
	// access.Keeper.Issued), every request needs one. Before that (or with
	// a nil Keeper), only requests that arrive on a loopback address are
	// served, without auth.
	Tokens *access.Keeper
	// SessionTimeout closes a session after this long without a request;
	// DefaultSessionTimeout when zero.
	SessionTimeout time.Duration
	// MaxBodyBytes limits a request body (413 beyond); DefaultMaxBodyBytes
	// when zero.
	MaxBodyBytes int64
	// MaxSessions limits the sessions open at once (503 for a new one
	// beyond); DefaultMaxSessions when zero.
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
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// HTTPHandler returns the Streamable HTTP handler: MCP at /mcp (sessions
// through Mcp-Session-Id, DNS-rebinding protection on, a body limit), the
// RFC 9728 metadata of /mcp, and a request log line for each.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	opts.defaults()
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.Server },
		&mcp.StreamableHTTPOptions{
			SessionTimeout:      opts.SessionTimeout,
			MaxRequestBodyBytes: opts.MaxBodyBytes,
			Logger:              s.log,
			// DNS-rebinding protection stays on (go-sdk's default): a request
			// that reaches a loopback address with another Host gets 403.
		})
	h := &httpHandler{server: s, opts: opts, mcp: http.NewCrossOriginProtection().Handler(streamable)}
	mux := http.NewServeMux()
	mux.Handle(mcpPath, h)
	mux.HandleFunc(metadataPath, s.logged(opts, serveMetadata))
	mux.HandleFunc("/", s.logged(opts, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not found: hubsnap serves MCP at "+mcpPath, http.StatusNotFound)
	}))
	return mux
}

// httpHandler guards /mcp: tokens, the session cap, the body limit.
type httpHandler struct {
	server *Server
	opts   HTTPOptions
	mcp    http.Handler

	fileErr atomic.Pointer[string] // the token file error logged last
}

// tokenFileError logs why the token file cannot be read, once per distinct
// reason rather than once per refused request.
func (h *httpHandler) tokenFileError(err error) {
	msg := err.Error()
	if last := h.fileErr.Swap(&msg); last == nil || *last != msg {
		h.server.log.Error("the token file cannot be read; every request is refused until it can", "err", err)
	}
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec, w := h.server.beginRequest(w, r)
	defer h.server.endRequest(h.opts.Log, rec)

	issued := false
	if h.opts.Tokens != nil {
		var err error
		if issued, err = h.opts.Tokens.Issued(); err != nil {
			h.tokenFileError(err)
			http.Error(w, "the server cannot read its token file; see its log", http.StatusServiceUnavailable)
			return
		}
		if h.fileErr.Load() != nil {
			h.fileErr.Store(nil) // readable again: log the next failure
		}
	}
	// What passes the token check (if any): the body limit, the session cap,
	// then MCP.
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if !rec.peek(w, r, h.opts.MaxBodyBytes) {
				return
			}
			if r.Header.Get("Mcp-Session-Id") == "" && h.server.sessionCount() >= h.opts.MaxSessions {
				w.Header().Set("Retry-After", "10")
				http.Error(w, "too many sessions", http.StatusServiceUnavailable)
				return
			}
		}
		h.mcp.ServeHTTP(w, r)
	})
	if !issued && arrivedOnLoopback(r) {
		guarded.ServeHTTP(w, r) // no token issued: open, on loopback only
		return
	}
	// RFC 6750 bearer tokens through go-sdk's auth package, which puts the
	// token's scopes where the tools see them (and ties each session to the
	// token's name, so another token cannot take it over).
	verify := func(_ context.Context, secret string, _ *http.Request) (*auth.TokenInfo, error) {
		t, err := h.opts.Tokens.Lookup(secret)
		switch {
		case errors.Is(err, access.ErrUnknownToken):
			return nil, fmt.Errorf("%w: unknown or revoked", auth.ErrInvalidToken)
		case err != nil:
			h.tokenFileError(err)
			return nil, errors.New("the server cannot read its token file; see its log")
		}
		rec.setToken(t.Name)
		return &auth.TokenInfo{Scopes: t.Scopes, UserID: t.Name}, nil
	}
	if h.opts.Tokens == nil {
		verify = func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return nil, fmt.Errorf("%w: no tokens are issued", auth.ErrInvalidToken)
		}
	}
	auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL:    baseURL(r) + metadataPath,
		AllowMissingExpiration: true, // hubsnap tokens last until revoked
	})(guarded).ServeHTTP(w, r)
}

// serveMetadata serves the RFC 9728 protected-resource metadata of /mcp.
// It names no authorization server: hubsnap's tokens are issued by
// `hubsnap token create`, not through OAuth.
func serveMetadata(w http.ResponseWriter, r *http.Request) {
	scopes := make([]string, len(access.Scopes))
	for i, sc := range access.Scopes {
		scopes[i] = string(sc)
	}
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               baseURL(r) + mcpPath,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "hubsnap",
	}).ServeHTTP(w, r)
}

// baseURL is the scheme and host the client used.
func baseURL(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
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

func (s *Server) sessionCount() int {
	n := 0
	for range s.Sessions() {
		n++
	}
	return n
}

// ServeStreamable serves HTTPHandler on ln until ctx ends, then shuts down
// cleanly: calls in flight are cancelled, every session is closed (which
// ends their GET streams, that would otherwise hold Shutdown), and
// requests get up to five seconds to finish.
func (s *Server) ServeStreamable(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	opts.defaults()
	hs := &http.Server{
		Handler:           s.HTTPHandler(opts),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		// No WriteTimeout: GET streams last as long as their sessions.
	}
	hs.RegisterOnShutdown(s.closeSessions)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		s.closeSessions()
		return err
	case <-ctx.Done():
	}
	s.Shutdown()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("requests still running at shutdown were cut off")
		err = hs.Close()
	}
	// RegisterOnShutdown's call runs in its own goroutine; close what it has
	// not closed yet, so every session is gone when this returns.
	s.closeSessions()
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// closeSessions closes every open session.
func (s *Server) closeSessions() {
	for ss := range s.Sessions() {
		ss.Close()
	}
}
