package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (a *app) newContextCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Manage contexts: a Hub, a project and an environment, with a token",
		Long: `A context names a Hub, a project and an environment, stored in the config
folder. The current context supplies the defaults of --hub, --project and
--environment, and the token when HUBSNAP_TOKEN is not set.`,
	}
	cmd.AddCommand(a.newContextSetCommand(), a.newContextUseCommand(), a.newContextListCommand(),
		a.newContextShowCommand(), a.newContextDeleteCommand())
	return group(cmd)
}

// contextNameOptions is what `hubsnap context use` and `context delete`
// work with.
type contextNameOptions struct {
	Stdout, Stderr io.Writer
	ConfigDir      string
	Name           string
}

func (a *app) newContextUseCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make a context current",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			dir, err := a.folders(cmd).needConfigDir()
			if err != nil {
				return err
			}
			return runContextUse(cmd.Context(), &contextNameOptions{Stdout: a.stdout, ConfigDir: dir, Name: argv[0]})
		},
	}
}

// runContextUse makes a context current.
func runContextUse(_ context.Context, opts *contextNameOptions) error {
	cfg, err := loadConfig(opts.ConfigDir)
	if err != nil {
		return err
	}
	if cfg.Contexts[opts.Name] == nil {
		return fmt.Errorf("no context %s; see `hubsnap context list`", quoteArg(opts.Name))
	}
	cfg.Current = opts.Name
	if err := cfg.save(opts.ConfigDir); err != nil {
		return err
	}
	fmt.Fprintf(opts.Stdout, "context %q is now current\n", opts.Name)
	return nil
}

func (a *app) newContextDeleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a context (and the token hubsnap kept for it)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			dir, err := a.folders(cmd).needConfigDir()
			if err != nil {
				return err
			}
			return runContextDelete(cmd.Context(), &contextNameOptions{
				Stdout: a.stdout, Stderr: a.stderr, ConfigDir: dir, Name: argv[0],
			})
		},
	}
}

// runContextDelete deletes a context, and the token file hubsnap kept for
// it (never a file the user named with --token-file).
func runContextDelete(_ context.Context, opts *contextNameOptions) error {
	dir, name := opts.ConfigDir, opts.Name
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	c := cfg.Contexts[name]
	if c == nil {
		return fmt.Errorf("no context %s; see `hubsnap context list`", quoteArg(name))
	}
	delete(cfg.Contexts, name)
	wasCurrent := cfg.Current == name
	if wasCurrent {
		cfg.Current = ""
	}
	if err := cfg.save(dir); err != nil {
		return err
	}
	if c.TokenFile == filepath.Join("tokens", name) { // ours, not the user's file
		os.Remove(c.tokenPath(dir))
	}
	fmt.Fprintf(opts.Stdout, "context %q deleted\n", name)
	if wasCurrent && len(cfg.Contexts) > 0 {
		fmt.Fprintln(opts.Stderr, "no context is current now; choose one with `hubsnap context use NAME`")
	}
	return nil
}

// contextListOptions is what `hubsnap context list` works with.
type contextListOptions struct {
	Stdout, Stderr io.Writer
	ConfigDir      string
}

func (a *app) newContextListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the contexts, the current one marked",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.folders(cmd).needConfigDir()
			if err != nil {
				return err
			}
			return runContextList(cmd.Context(), &contextListOptions{Stdout: a.stdout, Stderr: a.stderr, ConfigDir: dir})
		},
	}
}

// runContextList prints the contexts as a table, the current one marked.
func runContextList(_ context.Context, opts *contextListOptions) error {
	cfg, err := loadConfig(opts.ConfigDir)
	if err != nil {
		return err
	}
	if len(cfg.Contexts) == 0 {
		fmt.Fprintln(opts.Stderr, "no contexts; create one with `hubsnap context set NAME --hub URL --project P`")
		return nil
	}
	names := make([]string, 0, len(cfg.Contexts))
	for n := range cfg.Contexts {
		names = append(names, n)
	}
	slices.Sort(names)
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tHUB\tPROJECT\tENVIRONMENT\tTOKEN")
	for _, n := range names {
		c := cfg.Contexts[n]
		mark := " "
		if n == cfg.Current {
			mark = "*"
		}
		env := c.Environment
		if env == "" {
			env = defaultEnvironment
		}
		token := "-"
		if c.TokenFile != "" {
			token = "file"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\n", mark, n, c.Hub, c.Project, env, token)
	}
	return tw.Flush()
}

// contextShowOptions is what `hubsnap context show` works with.
type contextShowOptions struct {
	Stdout   io.Writer
	Settings *settings // as resolved for this run
}

func (a *app) newContextShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show the settings in effect and where each comes from",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			return runContextShow(cmd.Context(), &contextShowOptions{Stdout: a.stdout, Settings: s})
		},
	}
}

// runContextShow prints each setting in effect and where it comes from.
// The token is never shown: only whether it is set and readable.
func runContextShow(_ context.Context, opts *contextShowOptions) error {
	s := opts.Settings
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	ctxName := s.context
	if ctxName == "" {
		ctxName = "(none)"
	}
	fmt.Fprintf(tw, "context\t%s\n", ctxName)
	for _, row := range []struct {
		name string
		v    value
	}{
		{"hub", s.hub}, {"project", s.project}, {"environment", s.environment},
		{"cache dir", s.cacheDir}, {"config dir", s.configDir},
	} {
		v, src := row.v.v, row.v.source
		if v == "" {
			v, src = "(not set)", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row.name, v, src)
	}
	token, src := "(not set)", "-"
	if s.tokenSource != "" {
		token, src = "set (hidden)", s.tokenSource
		if _, err := s.needToken(); err != nil {
			token = "unreadable: " + oneLine(err.Error())
		}
	}
	fmt.Fprintf(tw, "token\t%s\t%s\n", token, src)
	return tw.Flush()
}

func quoteArg(s string) string { return fmt.Sprintf("%q", s) }
