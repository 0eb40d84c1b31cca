package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

type serveOptions struct {
	http           string
	sessionTimeout time.Duration
}

func (a *app) newServeCommand() *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve the current release to AI assistants over MCP (stdio, or HTTP for a team)",
		Long: `Serves hubsnap's MCP tools for the current release of the project and
environment (see hubsnap context show). It refuses to start when no release
is current: run hubsnap snapshot sync first.

Over stdio (the default), assistants start it themselves, for example:

  claude mcp add hubsnap -- hubsnap serve

Logs go to stderr; stdout carries the protocol only.

With --http ADDR it serves Streamable HTTP at http://ADDR/mcp for a team,
logging one line per request to stderr. Every request needs a token from
hubsnap token create, sent as "Authorization: Bearer TOKEN". While no token
exists, only a loopback address (127.0.0.1:7420, localhost:7420) may be
served, and then without auth; a token revoked with hubsnap token revoke
stops working within a second.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runServe(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.http, "http", "", "serve Streamable HTTP on this address (host:port) instead of stdio")
	cmd.Flags().DurationVar(&opts.sessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout,
		"with --http, close a session after this long without a request")
	return cmd
}

func (a *app) runServe(cmd *cobra.Command, opts *serveOptions) error {
	s, cacheDir, project, env, err := a.resolveTarget(cmd)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("session-timeout") && opts.http == "" {
		return usageErrorf("--session-timeout needs --http")
	}
	if opts.sessionTimeout <= 0 {
		return usageErrorf("--session-timeout must be positive")
	}
	// With --http, check the address and the tokens before anything else.
	var tokens *access.Keeper
	if opts.http != "" {
		if tokens, err = a.serveTokens(s, opts.http); err != nil {
			return err
		}
	}

	target := store.Target{Project: project, Environment: env}
	noRelease := fmt.Errorf("no current release for project %q, environment %q in %s; run `hubsnap snapshot sync` first",
		project, env, cacheDir)
	if !indexer.Exists(cacheDir) {
		return noRelease
	}
	c, err := indexer.Open(cmd.Context(), cacheDir, a.log)
	if err != nil {
		return err
	}
	defer c.Close()
	current, err := c.Store().Current(cmd.Context(), target)
	if err != nil {
		if store.ErrorCode(err) == store.NoRelease {
			return noRelease
		}
		return err
	}
	srv := mcpserver.New(c.Store(), mcpserver.Options{Target: target, Version: version(), Log: a.log})

	// Follow the release files while serving: a sync, import or use in
	// another process, or a removed file, shows in the next call.
	ctx, stop := context.WithCancel(cmd.Context())
	watched := make(chan error, 1)
	go func() {
		// After every rescan, tell clients if the served release changed,
		// whoever changed it (this process or another).
		watched <- c.Watch(ctx, indexer.WatchOptions{Rescanned: func(error) { srv.CheckRelease(ctx) }})
	}()
	if opts.http == "" {
		err = srv.ServeStdio(cmd.Context(), a.stdin, a.stdout)
	} else {
		err = a.serveHTTP(cmd.Context(), srv, opts, tokens, current)
	}
	stop()
	if werr := <-watched; werr != nil {
		a.log.Warn("watching the cache", "err", werr)
	}
	return err
}

// serveTokens checks that addr may be served and returns the tokens that
// guard it: a non-loopback address needs at least one token.
func (a *app) serveTokens(s *settings, addr string) (*access.Keeper, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usageErrorf("--http %q: want host:port, e.g. 127.0.0.1:7420", addr)
	}
	dir, err := s.needConfigDir()
	if err != nil {
		return nil, err
	}
	tokens, err := access.NewKeeper(access.NewFile(dir))
	if err != nil {
		return nil, err
	}
	n, _ := tokens.Count()
	if n == 0 && !mcpserver.IsLoopback(addr) {
		return nil, fmt.Errorf("refusing to serve %s without tokens: anyone who can reach it could read the schema; "+
			"create one with `hubsnap token create NAME --scopes '*'`, or serve a loopback address such as 127.0.0.1:7420", addr)
	}
	return tokens, nil
}

func (a *app) serveHTTP(ctx context.Context, srv *mcpserver.Server, opts *serveOptions, tokens *access.Keeper, current store.ReleaseInfo) error {
	ln, err := net.Listen("tcp", opts.http)
	if err != nil {
		return err
	}
	// Requests are logged at Info whatever --verbose says: a team server's
	// log is its record of who called what.
	requests := slog.New(slog.NewTextHandler(a.stderr, nil))
	n, _ := tokens.Count()
	issued, _ := tokens.Issued()
	mode := fmt.Sprintf("%d token(s); every request needs one", n)
	switch {
	case !issued:
		mode = "no token issued: open to this machine only, until one is created"
	case n == 0:
		mode = "every token is revoked: requests are refused until one is created"
	}
	requests.Info("serving MCP over HTTP", "url", "http://"+listenURLHost(opts.http, ln.Addr())+"/mcp",
		"release", current.ID, "project", current.Project, "environment", current.Environment, "access", mode)
	err = srv.ServeStreamable(ctx, ln, mcpserver.HTTPOptions{Tokens: tokens, SessionTimeout: opts.sessionTimeout, Log: requests})
	requests.Info("stopped")
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
