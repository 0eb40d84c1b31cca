package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	hubclient "github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/hubtest"
)

// demoRelease is the sample release the demo serves: the seeds' users,
// posts, purchase_item and admin/users, and a few more. Its connection
// URLs and logic secret are fake, there to show that they never reach the
// cache or an answer.
//
//go:embed demo_release.json
var demoRelease []byte

// demoPrevious is the release before demoRelease (rel_41, version 41): a
// table and a logic fewer, a table more, a column renamed, a nullable
// column, a foreign key missing, older SQL. The demo syncs it first, so
// that schema_diff has something to compare.
//
//go:embed demo_release_41.json
var demoPrevious []byte

// demoSecrets are the sensitive values in demoRelease, which must never
// reach the cache or an answer. Read only (TestDemo checks for them too).
var demoSecrets = []string{"demo-password-not-real", "sk_live_demo_not_real", "postgres://", "clickhouse://"}

// demoOptions is what `hubsnap demo` works with.
type demoOptions struct {
	Stdout, Stderr io.Writer // the walk-through; the serve child's log
	Log            *slog.Logger
	// CacheDir is --cache-dir: sync there and keep the cache. "" syncs into
	// a temporary folder, removed at the end: the demo never touches the
	// cache of the settings.
	CacheDir string
}

func (a *app) newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Run the whole thing on a built-in sample: Hub, sync, index, MCP over stdio",
		Long: `Runs hubsnap's main job on a built-in sample release, with no Hub, no network and
no setup: an in-process Hub on a loopback port serves the sample, hubsnap syncs it
for real into a temporary cache (or --cache-dir), then starts "hubsnap serve" as a
child process and talks MCP to it over stdio, printing each tool call and answer.
It never touches your own cache unless you give --cache-dir.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &demoOptions{Stdout: a.stdout, Stderr: a.stderr, Log: a.log}
			if cmd.Flags().Changed("cache-dir") { // only the flag, never the env or the default
				opts.CacheDir = a.flags.cacheDir
			}
			return runDemo(cmd.Context(), opts)
		},
	}
}

// runDemo runs hubsnap on the embedded sample: an in-process Hub
// (hubtest), a real indexer.Sync, and this program's own serve, started as
// a child and spoken to over stdio. It prints each step for a person.
func runDemo(ctx context.Context, opts *demoOptions) error {
	w := opts.Stdout
	dir := opts.CacheDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "hubsnap-demo-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "cache")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := demoSync(ctx, w, dir, opts.Log); err != nil {
		return err
	}
	if err := demoDiff(ctx, w, dir, opts.Log); err != nil {
		return err
	}
	if err := demoCheck(ctx, w, dir, opts.Log); err != nil {
		return err
	}
	if err := demoServe(ctx, opts, dir); err != nil {
		return err
	}
	io.WriteString(w, demoConnect)
	return nil
}

// demoSync starts the in-process Hub and syncs its two releases into dir,
// showing that no secret reached the cache.
func demoSync(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	const token = "demo-token"
	hub := hubtest.New()
	defer hub.Close()
	hub.Token = token
	hub.Add("shop", demoPrevious)
	hub.Add("shop", demoRelease)
	fmt.Fprintf(w, "1. An in-process Hub serves two sample releases at %s (it wants a bearer token).\n\n", hub.URL())

	client, err := hubclient.New(hub.URL(), hubclient.Options{Token: token})
	if err != nil {
		return err
	}
	sync := func(release string) (indexer.Result, error) {
		res, err := indexer.Sync(ctx, indexer.SyncOptions{CacheDir: dir, Hub: client, Project: "shop", Environment: "dev",
			Release: release, Log: log})
		if err != nil {
			return res, fmt.Errorf("demo sync: %w", err)
		}
		return res, nil
	}
	res, err := sync("rel_41")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. hubsnap snapshot sync --hub %s --project shop --release rel_41\n   %s\n", hub.URL(), summary("synced", res))
	if res, err = sync(""); err != nil {
		return err
	}
	fmt.Fprintf(w, "   hubsnap snapshot sync --hub %s --project shop\n   %s\n", hub.URL(), summary("synced", res))
	fmt.Fprintf(w, "   into %s:\n", dir)
	if err := listCache(w, dir); err != nil {
		return err
	}
	if found := findInFiles(dir, demoSecrets); len(found) > 0 {
		return fmt.Errorf("demo: sensitive values reached the cache: %v", found)
	}
	fmt.Fprintf(w, "   The sample's connection URLs, passwords and logic secret were dropped: none is in the cache.\n\n")
	return nil
}

// demoDiff prints what `hubsnap snapshot diff` shows a person after the
// demo's two syncs.
func demoDiff(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	fmt.Fprintf(w, "3. hubsnap snapshot diff: what changed from rel_41 to rel_42, for a person:\n\n")
	var report bytes.Buffer
	err := runDiff(ctx, &diffOptions{Stdout: &report, Log: log, CacheDir: dir, Project: "shop", Environment: "dev"})
	if err != nil {
		return fmt.Errorf("demo diff: %w", err)
	}
	for line := range strings.Lines(report.String()) {
		if line != "\n" {
			line = "   " + line
		}
		io.WriteString(w, line)
	}
	fmt.Fprintln(w)
	return nil
}

// demoCheck prints what `hubsnap snapshot check` shows a team's CI for
// the current release: its schema findings, and the exit status.
func demoCheck(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	fmt.Fprintf(w, "   hubsnap snapshot check: what a team's CI would flag in rel_42 (the schema, then the logics):\n\n")
	var report bytes.Buffer
	err := runCheck(ctx, &checkOptions{Stdout: &report, Log: log, CacheDir: dir, Project: "shop", Environment: "dev"})
	if _, found := errors.AsType[*failure](err); err != nil && !found {
		return fmt.Errorf("demo check: %w", err)
	}
	for line := range strings.Lines(report.String()) {
		io.WriteString(w, "   "+line)
	}
	if err != nil {
		fmt.Fprintf(w, "   hubsnap: %s (exit %d)\n", err, exitCode(err))
	}
	fmt.Fprintln(w)
	return nil
}

// listCache prints the files of the cache folder.
func listCache(w io.Writer, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(w, "     %-32s %8d bytes\n", filepath.ToSlash(rel), info.Size())
		return nil
	})
}

// findInFiles returns the needles found in any file under dir.
func findInFiles(dir string, needles []string) []string {
	var found []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) {
				found = append(found, n+" in "+filepath.Base(path))
			}
		}
		return nil
	})
	return found
}
