package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
)

func (a *app) newIndexCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Check and repair the cache's index",
	}
	cmd.AddCommand(a.newVerifyCommand(), a.newAnalyzeCommand(), a.newCompileParserCommand())
	return group(cmd)
}

// verifyOptions is what `hubsnap index verify` works with.
type verifyOptions struct {
	Stdout   io.Writer
	Log      *slog.Logger
	CacheDir string
	Repair   bool // --repair
	JSON     bool // --json
}

func (a *app) newVerifyCommand() *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [--repair] [--json]",
		Short: "Find any damage to the index; with --repair, rebuild it from the release files",
		Long: `Checks the index of the cache (index.db) for damage of any kind: reads every
page and checks it against its checksum, checks every b-tree, and compares
the content with an index rebuilt from the release files, which are the
truth. Prints what it found, one line each. Exits 0 when the index is
healthy, 1 when damage was found.

With --repair, damage of any kind is repaired: the index rebuilt from the
release files is copied into index.db, in one transaction that other
hubsnap processes (a running serve) see as any other change, and the index
is checked again. Exits 0 once repaired.

It takes about as long as importing every cached release.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			if opts.CacheDir, err = s.needCache(); err != nil {
				return err
			}
			opts.Stdout, opts.Log = a.stdout, a.log
			return runVerify(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Repair, "repair", false, "repair damage by rebuilding the index from the release files")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

// runVerify verifies (and with Repair repairs) the index and prints the
// report. Damage found and not repaired is an error (exit 1), after the
// report.
func runVerify(ctx context.Context, opts *verifyOptions) error {
	if !indexer.Exists(opts.CacheDir) {
		return fmt.Errorf("no cache in %s: nothing to verify", opts.CacheDir)
	}
	rep, err := indexer.Verify(ctx, opts.CacheDir, opts.Repair, opts.Log)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := struct {
			indexer.VerifyReport
			Healthy bool `json:"healthy"`
		}{rep, rep.Healthy()}
		if err := writeJSON(opts.Stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(opts.Stdout, "index %s: %d pages read\n", rep.Index, rep.Pages)
		for _, d := range rep.Damage {
			fmt.Fprintf(opts.Stdout, "damage (%s): %s\n", d.Kind, d.What)
		}
		switch {
		case len(rep.Damage) == 0:
			fmt.Fprintln(opts.Stdout, "healthy: every page holds its checksum, and the index is what the release files make")
		case rep.Repaired:
			fmt.Fprintln(opts.Stdout, "repaired: rebuilt from the release files, and healthy when checked again")
		}
	}
	if !rep.Healthy() {
		return fmt.Errorf("the index is damaged (%d problems); run `hubsnap index verify --repair` to rebuild it from the release files",
			len(rep.Damage))
	}
	return nil
}
