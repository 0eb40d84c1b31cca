package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store"
)

func (a *app) newSnapshotCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Sync, import, list, choose, compare, check, draw and prune cached release snapshots",
	}
	cmd.AddCommand(a.newSyncCommand(), a.newImportCommand(), a.newListCommand(), a.newUseCommand(),
		a.newDiffCommand(), a.newCheckCommand(), a.newDiagramCommand(), a.newPruneCommand())
	return group(cmd)
}

// listOptions is what `hubsnap snapshot list` works with.
type listOptions struct {
	Stdout, Stderr io.Writer
	Log            *slog.Logger
	CacheDir       string
	Project        string // "" for every project
	JSON           bool   // --json
}

func (a *app) newListCommand() *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the cached releases, the current ones marked",
		Long: `Lists the releases in the cache: those of the project when one is set
(flag, environment or context), else of every project. A * marks the
current release of its project and environment.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			if opts.CacheDir, err = s.needCache(); err != nil {
				return err
			}
			opts.Stdout, opts.Stderr, opts.Log, opts.Project = a.stdout, a.stderr, a.log, s.project.v
			return runList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the list as JSON")
	return cmd
}

// runList prints the cached releases as a table or as JSON. It never
// creates a cache: a missing one holds no releases.
func runList(ctx context.Context, opts *listOptions) error {
	var list []store.ReleaseInfo
	c, err := openExisting(ctx, opts.CacheDir, opts.Log, indexer.OpenOptions{})
	if err != nil {
		return err
	}
	if c != nil {
		defer c.Close()
		if list, err = c.Releases(ctx, opts.Project); err != nil {
			return err
		}
	}
	if opts.JSON {
		out := struct {
			Releases []releaseJSON `json:"releases"`
		}{Releases: []releaseJSON{}}
		for _, ri := range list {
			out.Releases = append(out.Releases, toJSON(ri))
		}
		return writeJSON(opts.Stdout, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(opts.Stderr, "no releases cached; run `hubsnap snapshot sync`")
		return nil
	}
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  PROJECT\tENVIRONMENT\tRELEASE\tVERSION\tTABLES\tLOGICS\tSYNCED\tSOURCE")
	for _, ri := range list {
		mark := " "
		if ri.Current {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", mark, ri.Project, ri.Environment, ri.ID,
			ri.Version, ri.Tables, ri.Logics, ri.SyncedAt, ri.Source)
	}
	return tw.Flush()
}

// useOptions is what `hubsnap snapshot use` works with.
type useOptions struct {
	Stdout               io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	Release              string // the release id to make current
}

func (a *app) newUseCommand() *cobra.Command {
	opts := &useOptions{}
	return &cobra.Command{
		Use:   "use ID",
		Short: "Make a cached release current (offline rollback)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.CacheDir, opts.Project, opts.Environment, err = a.resolveTarget(cmd); err != nil {
				return err
			}
			opts.Stdout, opts.Log, opts.Release = a.stdout, a.log, argv[0]
			return runUse(cmd.Context(), opts)
		},
	}
}

// runUse makes a cached release current (indexer.Cache.Use). It never
// creates a cache.
func runUse(ctx context.Context, opts *useOptions) error {
	if err := indexer.CheckName("release id", opts.Release); err != nil {
		return err
	}
	c, err := openExisting(ctx, opts.CacheDir, opts.Log, indexer.OpenOptions{})
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("release %q of project %q is not in the cache (%s is empty); run `hubsnap snapshot list`",
			opts.Release, opts.Project, opts.CacheDir)
	}
	defer c.Close()
	ri, err := c.Use(ctx, opts.Project, opts.Environment, opts.Release)
	switch store.ErrorCode(err) {
	case "":
	case store.NotFound:
		return fmt.Errorf("%w; run `hubsnap snapshot list` to see what is cached", err)
	default:
		return err
	}
	fmt.Fprintf(opts.Stdout, "%s/%s: %s (version %d) is now current\n", ri.Project, ri.Environment, ri.ID, ri.Version)
	return nil
}
