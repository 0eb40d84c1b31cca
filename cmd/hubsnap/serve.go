package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/transport"
	"github.com/hubsnap/hubsnap/store"
)

// serveOptions is what `hubsnap serve` works with.
type serveOptions struct {
	Stdin                io.Reader // the MCP channel over stdio, with Stdout
	Stdout, Stderr       io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	// ConfigDir holds the tokens of --http; "" when no config folder can
	// be found (an error only with --http and issued tokens).
	ConfigDir         string
	HTTP              string        // --http: serve Streamable HTTP on this host:port instead of stdio
	SessionTimeout    time.Duration // --session-timeout
	SessionTimeoutSet bool          // --session-timeout was given
	Stateless         bool          // --stateless: no sessions over HTTP
	AuthIssuer        string        // --auth-issuer: OAuth 2.1 access tokens of this issuer
	Resource          string        // --resource: the resource identifier; "" for http://ADDR/mcp
	// SyncEvery, when not zero, syncs from Hub in the background this often
	// (--sync-every).
	SyncEvery time.Duration
	Hub       *hub.Client
}

func (a *app) newServeCommand() *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR [--stateless] [--auth-issuer URL [--resource URL]]] [--sync-every DURATION]",
		Short: "Serve the current release to AI assistants over MCP (stdio, or HTTP for a team)",
		Long: `Serves hubsnap's MCP tools for the current release of the project and
environment (see hubsnap context show). It refuses to start when no release
is current: run hubsnap snapshot sync first (or give --sync-every).

Over stdio (the default), assistants start it themselves, for example:

  claude mcp add hubsnap -- hubsnap serve

Logs go to stderr; stdout carries the protocol only.

With --http ADDR it serves Streamable HTTP at http://ADDR/mcp for a team,
logging one line per request to stderr. Clients of protocol 2025-11-25 and
older get sessions; clients of 2026-07-28 are served without one. A session
stays open while its client calls or holds its GET stream, and closes after
--session-timeout of idleness (default 24h); at most 1000 are open, and past
that a new one closes the least recently used (of its own token first when
that token holds more than its fair share). With --stateless no request
needs a session, so replicas can sit behind a load balancer without sticky
sessions (docs/deploy.md).

Access over HTTP is one of two ways:
  - Tokens from hubsnap token create, sent as "Authorization: Bearer TOKEN".
    While no token exists, only a loopback address (127.0.0.1:7420,
    localhost:7420) may be served, and then without auth; a token revoked
    with hubsnap token revoke is refused from the next request on.
  - With --auth-issuer URL, OAuth 2.1: clients sign the user in at that
    authorization server (code flow with PKCE) and send its JWT access
    tokens, which must be for this server's resource identifier (--resource,
    by default http://ADDR/mcp; required when ADDR is 0.0.0.0 or [::]) and
    carry scopes such as table:read. Any address may be served.

With --sync-every DURATION (e.g. 5m) it syncs from the Hub in the
background, as hubsnap snapshot sync does; a failed sync is logged and
retried at the next tick while the last good release is served.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			if opts.CacheDir, opts.Project, opts.Environment, err = s.needTarget(); err != nil {
				return err
			}
			opts.Stdin, opts.Stdout, opts.Stderr, opts.Log = a.stdin, a.stdout, a.stderr, a.log
			opts.ConfigDir = s.configDir.v
			opts.SessionTimeoutSet = cmd.Flags().Changed("session-timeout")
			if err := opts.check(); err != nil {
				return err
			}
			if opts.SyncEvery != 0 {
				if opts.Hub, err = s.needHub(a.log); err != nil {
					return fmt.Errorf("--sync-every: %w", err)
				}
			}
			return runServe(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.HTTP, "http", "", "serve Streamable HTTP on this address (host:port) instead of stdio")
	f.DurationVar(&opts.SessionTimeout, "session-timeout", transport.DefaultSessionTimeout,
		"with --http, close a session after this long idle: no request in flight and no GET stream open")
	f.BoolVar(&opts.Stateless, "stateless", false,
		"with --http, keep no sessions: every request stands alone (replicas behind a load balancer)")
	f.StringVar(&opts.AuthIssuer, "auth-issuer", "",
		"with --http, accept OAuth 2.1 access tokens of this authorization server (instead of hubsnap token's)")
	f.StringVar(&opts.Resource, "resource", "",
		"with --auth-issuer, the URL clients use for this server, which tokens must be for (default http://ADDR/mcp)")
	f.DurationVar(&opts.SyncEvery, "sync-every", 0, "sync from the Hub in the background this often, e.g. 5m")
	return cmd
}

// minSyncEvery is the shortest --sync-every.
const minSyncEvery = time.Second

// check refuses flags that need another or exclude each other, before
// anything is read or served.
func (opts *serveOptions) check() error {
	needHTTP := func(flag string, given bool) error {
		if given && opts.HTTP == "" {
			return usageErrorf("%s needs --http", flag)
		}
		return nil
	}
	for _, err := range []error{
		needHTTP("--session-timeout", opts.SessionTimeoutSet),
		needHTTP("--stateless", opts.Stateless),
		needHTTP("--auth-issuer", opts.AuthIssuer != ""),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case opts.SessionTimeout <= 0:
		return usageErrorf("--session-timeout must be positive")
	case opts.Stateless && opts.SessionTimeoutSet:
		return usageErrorf("--session-timeout has no use with --stateless: there are no sessions")
	case opts.Resource != "" && opts.AuthIssuer == "":
		return usageErrorf("--resource needs --auth-issuer")
	case opts.SyncEvery < 0 || (opts.SyncEvery > 0 && opts.SyncEvery < minSyncEvery):
		return usageErrorf("--sync-every must be at least %v, e.g. 5m", minSyncEvery)
	}
	return nil
}

// runServe serves the current release over MCP (mcpserver, on a transport
// of package transport) until ctx ends
// or the client goes, while a watcher (indexer.Cache.Watch) follows the
// release files and, with SyncEvery, a background sync keeps the cache
// current. It refuses to start without a current release (after a first
// sync, with SyncEvery).
func runServe(ctx context.Context, opts *serveOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// What a team server says (requests, syncs) is logged at Info whatever
	// --verbose says: it is the server's record of what happened.
	status := slog.New(slog.NewTextHandler(opts.Stderr, nil))
	// With --http, check the address and the access before anything else.
	var tokens *access.Keeper
	if opts.HTTP != "" {
		var err error
		if opts.AuthIssuer != "" {
			err = checkOAuth(opts)
		} else {
			tokens, err = serveTokens(opts.ConfigDir, opts.HTTP)
		}
		if err != nil {
			return err
		}
	}
	target := store.Target{Project: opts.Project, Environment: opts.Environment}
	logics := newAnalyst(opts.CacheDir, opts.Stderr, log) // serve_analyze.go
	bg := newBackgroundSync(opts, status, log)
	if bg != nil {
		bg.opts.Logics = logics.openOptions()
	}
	c, current, err := openCurrent(ctx, opts, logics.openOptions(), log)
	synced := false
	if errors.Is(err, errNoCurrent) && bg != nil {
		// A new replica: its first sync makes a release current.
		status.Info("no current release yet: syncing from the Hub first", "project", opts.Project, "environment", opts.Environment)
		if serr := bg.once(ctx); serr != nil {
			return fmt.Errorf("%w; the first sync failed: %v", err, serr)
		}
		synced = true
		c, current, err = openCurrent(ctx, opts, logics.openOptions(), log)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if why := c.ReadOnly(); why != nil && !errors.Is(why, store.ErrDiskFull) { // a full disk is told by Open
		log.Warn("this hubsnap cannot write the cache: it serves the index as it is, and changes to the release files "+
			"show once a hubsnap that can write the cache has indexed them", "cache", opts.CacheDir, "why", why)
	}
	logics.pending = c.Store().PendingAnalyses
	repair := newRepairer(c, status) // serve_repair.go
	srv := mcpserver.New(c.Store(), mcpserver.Options{Target: target, Version: version(), Log: log, OnDamage: repair.damaged})

	stop := startBackground(ctx, background{cache: c, srv: srv, repair: repair, logics: logics, sync: bg,
		synced: synced, target: target, log: log})
	if opts.HTTP == "" {
		err = transport.ServeStdio(ctx, srv, opts.Stdin, opts.Stdout)
	} else {
		err = serveHTTP(ctx, srv, opts, tokens, current, status)
	}
	stop()
	return err
}

// background is what serve runs beside answering calls.
type background struct {
	cache  *indexer.Cache
	srv    *mcpserver.Server
	repair *repairer
	logics *analyst
	sync   *backgroundSync // nil without --sync-every
	synced bool            // the first sync ran already (a new replica)
	target store.Target
	log    *slog.Logger
}

// startBackground starts, until ctx ends or stop is called, the watcher
// of the release files (a sync, import or use in this process or another,
// or a removed file, shows in the next call), the repairs, the logic
// analyses and the background syncs. stop ends them and waits for them.
func startBackground(ctx context.Context, b background) (stop func()) {
	watchCtx, cancel := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() {
		// After every rescan, tell clients if the served release changed,
		// whoever changed it (this process or another).
		watched <- b.cache.Watch(watchCtx, indexer.WatchOptions{Rescanned: func(error) {
			b.srv.CheckRelease(watchCtx)
			b.logics.notify() // a repair, or another process's change, may have left releases pending
		}})
	}()
	repaired := make(chan struct{})
	go func() {
		defer close(repaired)
		b.repair.run(watchCtx)
	}()
	analysed := make(chan struct{})
	go func() {
		defer close(analysed)
		b.logics.run(watchCtx)
	}()
	syncing := make(chan struct{})
	go func() {
		defer close(syncing)
		if b.sync != nil {
			b.sync.serving = func(ctx context.Context) string { return servingID(ctx, b.cache.Store(), b.target) }
			b.sync.run(watchCtx, !b.synced)
		}
	}()
	return func() {
		cancel()
		<-syncing
		<-repaired
		<-analysed
		if werr := <-watched; werr != nil {
			b.log.Warn("watching the cache", "err", werr)
		}
	}
}

// errNoCurrent is the error of openCurrent when no release is current.
var errNoCurrent = errors.New("no current release")

// openCurrent opens the cache and returns it with the current release of
// the project and environment, or an error wrapping errNoCurrent that
// names hubsnap snapshot sync.
func openCurrent(ctx context.Context, opts *serveOptions, open indexer.OpenOptions, log *slog.Logger) (*indexer.Cache, store.ReleaseInfo, error) {
	noRelease := fmt.Errorf("%w for project %q, environment %q in %s; run `hubsnap snapshot sync` first",
		errNoCurrent, opts.Project, opts.Environment, opts.CacheDir)
	c, err := openExisting(ctx, opts.CacheDir, log, open)
	if err != nil {
		return nil, store.ReleaseInfo{}, err
	}
	if c == nil {
		return nil, store.ReleaseInfo{}, noRelease
	}
	current, err := c.Store().Current(ctx, store.Target{Project: opts.Project, Environment: opts.Environment})
	if err != nil {
		c.Close()
		if store.ErrorCode(err) == store.NoRelease {
			return nil, store.ReleaseInfo{}, noRelease
		}
		return nil, store.ReleaseInfo{}, err
	}
	return c, current, nil
}
