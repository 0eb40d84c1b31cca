package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store"
)

// diffOptions is what `hubsnap snapshot diff` works with.
type diffOptions struct {
	Stdout               io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	From, To             string // release ids; "" for the defaults
	JSON                 bool   // --json
	Color                bool   // colour the report: stdout is a terminal and NO_COLOR is not set
}

func (a *app) newDiffCommand() *cobra.Command {
	opts := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [FROM] [TO]",
		Short: "Show what changed between two cached releases",
		Long: `Compares two cached releases of the project and environment: the tables and
logics added, removed and changed, one line each, with the details indented.
FROM defaults to the cached release before TO (by version), TO to the current
release. --json prints the schema_diff tool's answer instead, whole. Offline.`,
		Args: args(cobra.MaximumNArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.CacheDir, opts.Project, opts.Environment, err = a.resolveTarget(cmd); err != nil {
				return err
			}
			if len(argv) > 0 {
				opts.From = argv[0]
			}
			if len(argv) > 1 {
				opts.To = argv[1]
			}
			opts.Stdout, opts.Log = a.stdout, a.log
			opts.Color = isTerminal(a.stdout) && a.getenv("NO_COLOR") == ""
			return runDiff(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the schema_diff answer as JSON")
	return cmd
}

// runDiff prints the diff between two cached releases. It never creates
// a cache.
func runDiff(ctx context.Context, opts *diffOptions) error {
	for _, id := range []string{opts.From, opts.To} {
		if id == "" {
			continue
		}
		if err := indexer.CheckName("release id", id); err != nil {
			return err
		}
	}
	c, err := openReleases(ctx, opts.CacheDir, opts.Project, opts.Environment, opts.Log)
	if err != nil {
		return err
	}
	defer c.Close()
	d, err := c.Store().Diff(ctx, store.Target{Project: opts.Project, Environment: opts.Environment},
		store.DiffRequest{From: opts.From, To: opts.To, Tables: true, Logics: true, Whole: true})
	if err != nil {
		return err // a release of another environment is WRONG_ENVIRONMENT: exit 1
	}
	if opts.JSON {
		// The schema_diff answer, indented: <, > and & stay as they are.
		enc := json.NewEncoder(opts.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	return writeDiff(opts.Stdout, opts.Project+"/"+opts.Environment, d, opts.Color)
}
