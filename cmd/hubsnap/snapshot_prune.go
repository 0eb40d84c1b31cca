package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
)

// pruneOptions is what `hubsnap snapshot prune` works with.
type pruneOptions struct {
	Stdout               io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	Keep                 int  // --keep
	JSON                 bool // --json
}

func (a *app) newPruneCommand() *cobra.Command {
	opts := &pruneOptions{}
	cmd := &cobra.Command{
		Use:   "prune --keep N",
		Short: "Delete all but the newest N cached releases (never the current one)",
		Long: `Deletes the cached releases of the project and environment except the newest N
by version and the current one, which is always kept: each release's file and
index rows go together, in one transaction. Releases of other environments
are left alone. Prints what it removed. Offline.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("keep") {
				return usageErrorf("--keep N is required: how many of the newest releases to keep (see %s --help)", cmd.CommandPath())
			}
			if opts.Keep < 1 {
				return usageErrorf("--keep must be at least 1, got %d (the current release is kept besides)", opts.Keep)
			}
			var err error
			if opts.CacheDir, opts.Project, opts.Environment, err = a.resolveTarget(cmd); err != nil {
				return err
			}
			opts.Stdout, opts.Log = a.stdout, a.log
			return runPrune(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Keep, "keep", 0, "how many of the newest releases to keep (at least 1)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was removed and kept as JSON")
	return cmd
}

// runPrune removes old releases (indexer.Cache.Prune) and prints what it
// removed. It never creates a cache.
func runPrune(ctx context.Context, opts *pruneOptions) error {
	var res indexer.PruneResult
	c, err := openExisting(ctx, opts.CacheDir, opts.Log, indexer.OpenOptions{})
	if err != nil {
		return err
	}
	if c != nil {
		defer c.Close()
		if res, err = c.Prune(ctx, opts.Project, opts.Environment, opts.Keep); err != nil {
			return err
		}
	}
	if opts.JSON {
		out := struct {
			Removed []releaseJSON `json:"removed"`
			Kept    []releaseJSON `json:"kept"`
		}{Removed: []releaseJSON{}, Kept: []releaseJSON{}}
		for _, ri := range res.Removed {
			out.Removed = append(out.Removed, toJSON(ri))
		}
		for _, ri := range res.Kept {
			out.Kept = append(out.Kept, toJSON(ri))
		}
		return writeJSON(opts.Stdout, out)
	}
	target := opts.Project + "/" + opts.Environment
	for _, ri := range res.Removed {
		fmt.Fprintf(opts.Stdout, "removed %s %s (version %d)\n", target, ri.ID, ri.Version)
	}
	kept := make([]string, len(res.Kept))
	for i, ri := range res.Kept {
		kept[i] = fmt.Sprintf("%s (version %d", ri.ID, ri.Version)
		if ri.Current {
			kept[i] += ", current"
		}
		kept[i] += ")"
	}
	switch {
	case len(res.Kept) == 0:
		fmt.Fprintf(opts.Stdout, "%s: no releases cached; nothing to prune\n", target)
	case len(res.Removed) == 0:
		fmt.Fprintf(opts.Stdout, "%s: nothing to prune; kept %s\n", target, strings.Join(kept, ", "))
	default:
		fmt.Fprintf(opts.Stdout, "%s: kept %s\n", target, strings.Join(kept, ", "))
	}
	return nil
}
