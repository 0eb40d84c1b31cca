package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/mcpserver/diagram"
	"github.com/hubsnap/hubsnap/mcpserver/diagram/svg"
	"github.com/hubsnap/hubsnap/store"
)

// diagramOptions is what `hubsnap snapshot diagram` works with.
type diagramOptions struct {
	Stdout               io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	Table, Connection    string
	Hops                 int
	Release              string // "" for the current release
	Format               string // mermaid, svg or html
	Theme                string // light or dark (svg)
	Output               string // -o; "" for stdout
}

func (a *app) newDiagramCommand() *cobra.Command {
	opts := &diagramOptions{}
	cmd := &cobra.Command{
		Use:   "diagram TABLE",
		Short: "Draw a table and its foreign-key neighbours",
		Long: `Draws TABLE and every table within --hops foreign-key steps of it, in either
direction (at most 40, nearest first), as schema_diagram does: Mermaid text
(the tool's text, for Markdown and pull requests), an SVG laid out by the
same engine as the MCP App (dagre), or the app's page standalone with the
data inlined. TABLE may be connection.table. Offline.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.CacheDir, opts.Project, opts.Environment, err = a.resolveTarget(cmd); err != nil {
				return err
			}
			opts.Table, opts.Stdout, opts.Log = argv[0], a.stdout, a.log
			return runDiagram(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Hops, "hops", store.DefaultDiagramHops, "foreign-key steps to follow, 1 to 3")
	f.StringVar(&opts.Connection, "connection", "", "the table's database connection, when its name is in several")
	f.StringVar(&opts.Release, "release", "", "a cached release of the project to draw (default: the current one)")
	f.StringVar(&opts.Format, "format", "mermaid", "mermaid, svg or html")
	f.StringVar(&opts.Theme, "theme", "light", "the SVG's colours: light or dark")
	f.StringVarP(&opts.Output, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

// runDiagram prints or writes the diagram. It never creates a cache.
func runDiagram(ctx context.Context, opts *diagramOptions) error {
	switch {
	case opts.Format != "mermaid" && opts.Format != "svg" && opts.Format != "html":
		return usageErrorf("--format must be mermaid, svg or html, not %q", opts.Format)
	case opts.Theme != "light" && opts.Theme != "dark":
		return usageErrorf("--theme must be light or dark, not %q", opts.Theme)
	case opts.Hops < 1 || opts.Hops > store.MaxDiagramHops:
		return usageErrorf("--hops must be between 1 and %d, not %d", store.MaxDiagramHops, opts.Hops)
	}
	if opts.Release != "" {
		if err := indexer.CheckName("release id", opts.Release); err != nil {
			return err
		}
	}
	c, err := openReleases(ctx, opts.CacheDir, opts.Project, opts.Environment, opts.Log)
	if err != nil {
		return err
	}
	defer c.Close()
	answer, err := c.Store().DiagramJSON(ctx, store.Target{Project: opts.Project, Environment: opts.Environment},
		store.DiagramRequest{Table: opts.Table, Connection: opts.Connection, Hops: opts.Hops, Release: opts.Release})
	if err != nil {
		return err
	}
	var out string
	switch opts.Format {
	case "mermaid":
		var d diagram.Diagram
		if err := json.Unmarshal(answer, &d); err != nil {
			return fmt.Errorf("read the diagram: %w", err)
		}
		out = diagram.Mermaid(&d)
	case "svg":
		if out, err = svg.Draw(answer, opts.Theme); err != nil {
			return err
		}
		out += "\n"
	case "html":
		out = diagram.Standalone(answer)
	}
	if opts.Output == "" {
		_, err = io.WriteString(opts.Stdout, out)
		return err
	}
	if err := os.WriteFile(opts.Output, []byte(out), 0o644); err != nil {
		return fmt.Errorf("write the diagram: %w", err)
	}
	return nil
}
