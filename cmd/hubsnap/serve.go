package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store"
)

func (a *app) newServeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the current release to an AI assistant over MCP (stdio)",
		Long: `Serves hubsnap's MCP tools over standard input and output for the current release
of the project and environment (see hubsnap context show). Assistants start it
themselves, for example:

  claude mcp add hubsnap -- hubsnap serve

Logs go to stderr; stdout carries the protocol only. It refuses to start when no
release is current: run hubsnap snapshot sync first.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, cacheDir, project, env, err := a.resolveTarget(cmd)
			if err != nil {
				return err
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
			if _, err := c.Store().Current(cmd.Context(), target); err != nil {
				if store.ErrorCode(err) == store.NoRelease {
					return noRelease
				}
				return err
			}
			srv := mcpserver.New(c.Store(), mcpserver.Options{Target: target, Version: version(), Log: a.log})

			// Follow the release files while serving: a sync, import or use
			// in another process, or a removed file, shows in the next call.
			ctx, stop := context.WithCancel(cmd.Context())
			watched := make(chan error, 1)
			go func() {
				// After every rescan, tell clients if the served release
				// changed, whoever changed it (this process or another).
				watched <- c.Watch(ctx, indexer.WatchOptions{Rescanned: func(error) { srv.CheckRelease(ctx) }})
			}()
			err = srv.ServeStdio(cmd.Context(), a.stdin, a.stdout)
			stop()
			if werr := <-watched; werr != nil {
				a.log.Warn("watching the cache", "err", werr)
			}
			return err
		},
	}
}
