package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store"
)

func (a *app) newSnapshotCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Sync, import, list and choose cached release snapshots",
	}
	cmd.AddCommand(a.newSyncCommand(), a.newImportCommand(), a.newListCommand(), a.newUseCommand())
	return group(cmd)
}

// releaseJSON is a release in --json output.
type releaseJSON struct {
	Project     string `json:"project"`
	Environment string `json:"environment"`
	Release     string `json:"release"`
	Version     int64  `json:"version"`
	CreatedAt   string `json:"createdAt"`
	SyncedAt    string `json:"syncedAt"`
	Source      string `json:"source"`
	Digest      string `json:"digest"`
	Tables      int    `json:"tables"`
	Logics      int    `json:"logics"`
	Current     bool   `json:"current"`
	Unchanged   *bool  `json:"unchanged,omitempty"`
}

func toJSON(ri store.ReleaseInfo) releaseJSON {
	return releaseJSON{
		Project: ri.Project, Environment: ri.Environment, Release: ri.ID, Version: ri.Version,
		CreatedAt: ri.CreatedAt, SyncedAt: ri.SyncedAt, Source: ri.Source, Digest: ri.Digest,
		Tables: ri.Tables, Logics: ri.Logics, Current: ri.Current,
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// summary is the one line that sync and import print.
func summary(verb string, r indexer.Result) string {
	s := fmt.Sprintf("%s %s/%s %s (version %d): %s, %s", verb, r.Project, r.Environment, r.ID, r.Version,
		plural(r.Tables, "table"), plural(r.Logics, "logic"))
	if r.Unchanged {
		s += ", unchanged"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type syncOptions struct {
	release string
	json    bool
	timeout time.Duration
}

func (a *app) newSyncCommand() *cobra.Command {
	opts := &syncOptions{}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Pull the newest release (or --release ID) from the Hub and make it current",
		Long: `Lists the project's releases for the environment on the Hub, takes the highest
version (or --release ID), downloads it unless the cache already holds that
digest, verifies, sanitizes and indexes it, and makes it current.
On any failure the cache is exactly as before.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSync(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.release, "release", "", "sync this release id instead of the newest")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 5*time.Minute, "give up after this long")
	return cmd
}

// resolveCache resolves the settings and the cache folder, which every
// snapshot command needs.
func (a *app) resolveCache(cmd *cobra.Command) (*settings, string, error) {
	s, err := a.resolve(cmd)
	if err != nil {
		return nil, "", err
	}
	dir, err := s.needCache()
	return s, dir, err
}

// resolveTarget resolves the settings, the cache folder, and the project
// and environment a command works on.
func (a *app) resolveTarget(cmd *cobra.Command) (s *settings, cacheDir, project, env string, err error) {
	if s, cacheDir, err = a.resolveCache(cmd); err != nil {
		return nil, "", "", "", err
	}
	project, env, err = s.needProject()
	return s, cacheDir, project, env, err
}

func (a *app) runSync(cmd *cobra.Command, opts *syncOptions) error {
	s, cacheDir, project, env, err := a.resolveTarget(cmd)
	if err != nil {
		return err
	}
	hub, err := s.needHub()
	if err != nil {
		return err
	}
	if opts.timeout <= 0 {
		return usageErrorf("--timeout must be positive")
	}
	if opts.release != "" {
		if err := indexer.CheckName("--release", opts.release); err != nil {
			return &usageError{err.Error()}
		}
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), opts.timeout)
	defer cancel()
	p := newProgress(a.stderr, opts.release)
	defer p.done()
	hub.Progress = p.update
	res, err := indexer.Sync(ctx, indexer.SyncOptions{
		CacheDir: cacheDir, Hub: hub, Project: project, Environment: env, Release: opts.release, Log: a.log,
	})
	p.done()
	if err != nil {
		return err
	}
	return a.printResult("synced", res, opts.json)
}

func (a *app) printResult(verb string, res indexer.Result, asJSON bool) error {
	if asJSON {
		j := toJSON(res.ReleaseInfo)
		j.Unchanged = &res.Unchanged
		return writeJSON(a.stdout, j)
	}
	_, err := fmt.Fprintln(a.stdout, summary(verb, res))
	return err
}

func (a *app) newImportCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a snapshot file (or - for stdin) into the cache and make it current",
		Long: `Reads a snapshot document from FILE (or standard input for -), checks and
sanitizes it like sync does, and makes it current for the project and
environment the snapshot names. Works offline.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			_, cacheDir, err := a.resolveCache(cmd)
			if err != nil {
				return err
			}
			res, err := indexer.Import(cmd.Context(), cacheDir, argv[0], a.stdin, a.log)
			if err != nil {
				return err
			}
			return a.printResult("imported", res, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func (a *app) newListCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the cached releases, the current ones marked",
		Long: `Lists the releases in the cache: those of the project when one is set
(flag, environment or context), else of every project. A * marks the
current release of its project and environment.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, cacheDir, err := a.resolveCache(cmd)
			if err != nil {
				return err
			}
			var list []store.ReleaseInfo
			if indexer.Exists(cacheDir) {
				c, err := indexer.Open(cmd.Context(), cacheDir, a.log)
				if err != nil {
					return err
				}
				defer c.Close()
				if list, err = c.Releases(cmd.Context(), s.project.v); err != nil {
					return err
				}
			}
			if asJSON {
				out := struct {
					Releases []releaseJSON `json:"releases"`
				}{Releases: []releaseJSON{}}
				for _, ri := range list {
					out.Releases = append(out.Releases, toJSON(ri))
				}
				return writeJSON(a.stdout, out)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.stderr, "no releases cached; run `hubsnap snapshot sync`")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
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
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}

func (a *app) newUseCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "use ID",
		Short: "Make a cached release current (offline rollback)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			_, cacheDir, project, env, err := a.resolveTarget(cmd)
			if err != nil {
				return err
			}
			if err := indexer.CheckName("release id", argv[0]); err != nil {
				return &usageError{err.Error()}
			}
			if !indexer.Exists(cacheDir) {
				return fmt.Errorf("release %q of project %q is not in the cache (%s is empty); run `hubsnap snapshot list`", argv[0], project, cacheDir)
			}
			c, err := indexer.Open(cmd.Context(), cacheDir, a.log)
			if err != nil {
				return err
			}
			defer c.Close()
			ri, err := c.Use(cmd.Context(), project, env, argv[0])
			if err != nil {
				if store.ErrorCode(err) == store.NotFound {
					return fmt.Errorf("%w; run `hubsnap snapshot list` to see what is cached", err)
				}
				return err
			}
			fmt.Fprintf(a.stdout, "%s/%s: %s (version %d) is now current\n", ri.Project, ri.Environment, ri.ID, ri.Version)
			return nil
		},
	}
	return cmd
}
