package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
)

// analyzeOptions is what `hubsnap index analyze` works with.
type analyzeOptions struct {
	Stdout   io.Writer
	Log      *slog.Logger
	CacheDir string
}

// newAnalyzeCommand is `hubsnap index analyze`, hidden: serve, which never
// parses SQL, runs it to analyse the logics of the releases it indexed
// (serve_analyze.go).
func (a *app) newAnalyzeCommand() *cobra.Command {
	opts := &analyzeOptions{}
	return &cobra.Command{
		Use:    "analyze",
		Short:  "Analyse the logics of releases indexed without their analysis",
		Hidden: true,
		Args:   args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			if opts.CacheDir, err = s.needCache(); err != nil {
				return err
			}
			opts.Stdout, opts.Log = a.stdout, a.log
			return runAnalyze(cmd.Context(), opts)
		},
	}
}

// runAnalyze opens the cache, which analyses what is pending at Open
// (under the cache's write lock), and says how many releases wait still.
func runAnalyze(ctx context.Context, opts *analyzeOptions) error {
	c, err := openExisting(ctx, opts.CacheDir, opts.Log, indexer.OpenOptions{})
	if err != nil || c == nil {
		return err
	}
	defer c.Close()
	if _, err := c.AnalyzePending(ctx); err != nil { // what Open could not (a busy lock)
		return err
	}
	left, err := c.Store().PendingAnalyses(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Stdout, "%d releases pending\n", left)
	return nil
}
