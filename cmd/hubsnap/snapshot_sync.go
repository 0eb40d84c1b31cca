package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/store"
)

// syncOptions is what `hubsnap snapshot sync` works with.
type syncOptions struct {
	Stdout, Stderr       io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	Hub                  *hub.Client
	Release              string        // --release: this id instead of the newest
	JSON                 bool          // --json
	Timeout              time.Duration // --timeout
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
			s, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			if opts.CacheDir, opts.Project, opts.Environment, err = s.needTarget(); err != nil {
				return err
			}
			if opts.Hub, err = s.needHub(a.log); err != nil {
				return err
			}
			opts.Stdout, opts.Stderr, opts.Log = a.stdout, a.stderr, a.log
			return runSync(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Release, "release", "", "sync this release id instead of the newest")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "give up after this long")
	return cmd
}

// runSync pulls a release from the Hub into the cache (indexer.Sync) and
// prints the summary line, drawing a progress line on a terminal meanwhile.
func runSync(ctx context.Context, opts *syncOptions) error {
	if opts.Timeout <= 0 {
		return usageErrorf("--timeout must be positive")
	}
	if opts.Release != "" {
		if err := indexer.CheckName("--release", opts.Release); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	p := newProgress(opts.Stderr, opts.Release)
	defer p.done()
	opts.Hub.Progress = p.update
	res, err := indexer.Sync(ctx, indexer.SyncOptions{
		CacheDir: opts.CacheDir, Hub: opts.Hub, Project: opts.Project, Environment: opts.Environment,
		Release: opts.Release, Log: opts.Log,
	})
	p.done()
	if err != nil {
		return err
	}
	return printResult(opts.Stdout, "synced", res, opts.JSON)
}

// importOptions is what `hubsnap snapshot import` works with.
type importOptions struct {
	Stdin    io.Reader // read for File "-"
	Stdout   io.Writer
	Log      *slog.Logger
	CacheDir string
	File     string // the snapshot file, or "-" for Stdin
	JSON     bool   // --json
}

func (a *app) newImportCommand() *cobra.Command {
	opts := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a snapshot file (or - for stdin) into the cache and make it current",
		Long: `Reads a snapshot document from FILE (or standard input for -), checks and
sanitizes it like sync does, and makes it current for the project and
environment the snapshot names. Works offline.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.CacheDir, err = a.folders(cmd).needCache(); err != nil {
				return err
			}
			opts.Stdin, opts.Stdout, opts.Log, opts.File = a.stdin, a.stdout, a.log, argv[0]
			return runImport(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

// runImport reads a snapshot file into the cache (indexer.Import) and
// prints the summary line.
func runImport(ctx context.Context, opts *importOptions) error {
	res, err := indexer.Import(ctx, opts.CacheDir, opts.File, opts.Stdin, opts.Log)
	if err != nil {
		return err
	}
	return printResult(opts.Stdout, "imported", res, opts.JSON)
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

// printResult prints what a sync or an import did: the summary line, or
// the release as JSON.
func printResult(w io.Writer, verb string, res indexer.Result, asJSON bool) error {
	if asJSON {
		j := toJSON(res.ReleaseInfo)
		j.Unchanged = &res.Unchanged
		return writeJSON(w, j)
	}
	_, err := fmt.Fprintln(w, summary(verb, res))
	return err
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
