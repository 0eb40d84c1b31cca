package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/transport"
	"github.com/hubsnap/hubsnap/store"
)

// serve --http: the access the address needs, and the transport's
// Streamable HTTP server on it (package transport).

// serveTokens checks that addr may be served and returns the tokens of the
// config folder dir that guard it: a non-loopback address needs at least
// one token.
func serveTokens(dir, addr string) (*access.Keeper, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usageErrorf("--http %q: want host:port, e.g. 127.0.0.1:7420", addr)
	}
	if dir == "" {
		return nil, errNoConfigDir()
	}
	tokens, err := access.NewKeeper(access.NewFile(dir))
	if err != nil {
		return nil, err
	}
	n, _ := tokens.Count()
	if n == 0 && !transport.IsLoopback(addr) {
		return nil, fmt.Errorf("refusing to serve %s without tokens: anyone who can reach it could read the schema; "+
			"create one with `hubsnap token create NAME --scopes '*'`, or serve a loopback address such as 127.0.0.1:7420", addr)
	}
	return tokens, nil
}

// serveHTTP serves srv over Streamable HTTP on opts.HTTP, logging one line
// per request to status.
func serveHTTP(ctx context.Context, srv *mcpserver.Server, opts *serveOptions, tokens *access.Keeper,
	current store.ReleaseInfo, status *slog.Logger) error {
	ln, err := net.Listen("tcp", opts.HTTP)
	if err != nil {
		return err
	}
	url := "http://" + listenURLHost(opts.HTTP, ln.Addr()) + "/mcp"
	httpOpts := transport.HTTPOptions{Stateless: opts.Stateless, SessionTimeout: opts.SessionTimeout, Log: status}
	var mode string
	if opts.AuthIssuer != "" {
		if httpOpts.OAuth, err = startVerifier(ctx, opts, url, status); err != nil {
			ln.Close()
			return err
		}
		mode = fmt.Sprintf("OAuth 2.1: access tokens of %s for %s", opts.AuthIssuer, httpOpts.OAuth.Resource())
	} else {
		httpOpts.Tokens = tokens
		n, _ := tokens.Count()
		issued, _ := tokens.Issued()
		mode = fmt.Sprintf("%d token(s); every request needs one", n)
		switch {
		case !issued:
			mode = "no token issued: open to this machine only, until one is created"
		case n == 0:
			mode = "every token is revoked: requests are refused until one is created"
		}
	}
	sessions := fmt.Sprintf("for 2025-11-25 and older (closed after %v idle; at most %d, the least recently used "+
		"closed past that); 2026-07-28 without", opts.SessionTimeout, transport.DefaultMaxSessions)
	if opts.Stateless {
		sessions = "none (stateless)"
	}
	status.Info("serving MCP over HTTP", "url", url, "release", current.ID, "project", current.Project,
		"environment", current.Environment, "access", mode, "sessions", sessions)
	err = transport.ServeStreamable(ctx, srv, ln, httpOpts)
	status.Info("stopped")
	return err
}

// listenURLHost is host:port for the log's URL: the host as given (Go
// listens on [::] for 0.0.0.0, which would only confuse), with the port
// actually bound (for :0).
func listenURLHost(requested string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(requested)
	_, port, _ := net.SplitHostPort(bound.String())
	if host == "" {
		host = "0.0.0.0"
	}
	return net.JoinHostPort(host, port)
}
