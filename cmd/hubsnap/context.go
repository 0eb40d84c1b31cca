package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
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

type contextSetOptions struct {
	tokenFile  string
	tokenStdin bool
}

func (a *app) newContextSetCommand() *cobra.Command {
	opts := &contextSetOptions{}
	cmd := &cobra.Command{
		Use:   "set NAME --hub URL --project P [--environment E] [--token-file F | --token-stdin]",
		Short: "Create or change a context",
		Long: `Creates the context NAME, or changes the settings given for an existing one.
A new context needs --hub and --project. The first context becomes current.

The token is never a flag: --token-stdin reads it from standard input and
keeps it in a file only you can read (tokens/NAME in the config folder);
--token-file points at a file that holds it; --token-file "" forgets it.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.runContextSet(cmd, argv[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.tokenFile, "token-file", "", "file that holds the Hub token")
	cmd.Flags().BoolVar(&opts.tokenStdin, "token-stdin", false, "read the Hub token from standard input and keep it")
	return cmd
}

func (a *app) runContextSet(cmd *cobra.Command, name string, opts *contextSetOptions) error {
	if err := indexer.CheckName("context name", name); err != nil {
		return &usageError{err.Error()}
	}
	s, err := a.resolve(cmd)
	if err != nil {
		return err
	}
	dir := s.configDir.v
	if dir == "" {
		return usageErrorf("no config folder: set --config-dir or %s (HOME is not set)", envConfigDir)
	}
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	c, existed := cfg.Contexts[name]
	if !existed {
		c = &contextConfig{}
	}
	changed := cmd.Flags().Changed
	if changed("token-file") && opts.tokenStdin {
		return usageErrorf("give either --token-file or --token-stdin, not both")
	}
	if changed("hub") {
		if _, err := indexer.NewHub(a.flags.hub, indexer.HubOptions{}); err != nil {
			return &usageError{"--hub: " + err.Error()}
		}
		c.Hub = strings.TrimRight(a.flags.hub, "/")
	}
	if changed("project") {
		if err := indexer.CheckName("--project", a.flags.project); err != nil {
			return &usageError{err.Error()}
		}
		c.Project = a.flags.project
	}
	if changed("environment") {
		if err := indexer.CheckName("--environment", a.flags.environment); err != nil {
			return &usageError{err.Error()}
		}
		c.Environment = a.flags.environment
	}
	if c.Hub == "" || c.Project == "" {
		return usageErrorf("context %q needs --hub and --project", name)
	}
	ours := filepath.Join("tokens", name) // where --token-stdin keeps the token
	switch {
	case opts.tokenStdin:
		// From a terminal, one line; from a pipe, the whole input, which
		// must be the token alone.
		terminal := isTerminal(a.stdin)
		if terminal {
			fmt.Fprintf(a.stderr, "Paste the Hub token for context %q and press Enter: ", name)
		}
		in := bufio.NewReader(io.LimitReader(a.stdin, 64<<10))
		line, err := in.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("read the token: %w", err)
		}
		var rest []byte
		if !terminal {
			rest, _ = io.ReadAll(in)
		}
		t := strings.TrimSpace(line)
		if t == "" || strings.ContainsAny(t, " \t") || strings.TrimSpace(string(rest)) != "" {
			return usageErrorf("--token-stdin: standard input must hold the token alone, on one line")
		}
		rel := ours
		if err := os.MkdirAll(filepath.Join(dir, "tokens"), 0o700); err != nil {
			return fmt.Errorf("save the token: %w", err)
		}
		if err := writeFileAtomic(filepath.Join(dir, rel), []byte(t+"\n"), 0o600); err != nil {
			return fmt.Errorf("save the token: %w", err)
		}
		c.TokenFile = rel
	case changed("token-file") && opts.tokenFile == "":
		c.TokenFile = ""
		os.Remove(filepath.Join(dir, ours)) // forget means forget
	case changed("token-file"):
		abs, err := filepath.Abs(opts.tokenFile)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return &usageError{fmt.Sprintf("--token-file: %v", err)}
		}
		c.TokenFile = abs
		os.Remove(filepath.Join(dir, ours))
	}
	cfg.Contexts[name] = c
	if cfg.Current == "" {
		cfg.Current = name
	}
	if err := cfg.save(dir); err != nil {
		return err
	}
	verb := "updated"
	if !existed {
		verb = "created"
	}
	note := ""
	if cfg.Current == name {
		note = " (current)"
	}
	fmt.Fprintf(a.stdout, "context %q %s%s\n", name, verb, note)
	return nil
}

func (a *app) newContextUseCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make a context current",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			dir, cfg, err := a.loadContexts(cmd)
			if err != nil {
				return err
			}
			if cfg.Contexts[argv[0]] == nil {
				return fmt.Errorf("no context %s; see `hubsnap context list`", quoteArg(argv[0]))
			}
			cfg.Current = argv[0]
			if err := cfg.save(dir); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "context %q is now current\n", argv[0])
			return nil
		},
	}
}

func (a *app) newContextDeleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a context (and the token hubsnap kept for it)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			dir, cfg, err := a.loadContexts(cmd)
			if err != nil {
				return err
			}
			name := argv[0]
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
			fmt.Fprintf(a.stdout, "context %q deleted\n", name)
			if wasCurrent && len(cfg.Contexts) > 0 {
				fmt.Fprintln(a.stderr, "no context is current now; choose one with `hubsnap context use NAME`")
			}
			return nil
		},
	}
}

func (a *app) newContextListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the contexts, the current one marked",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, cfg, err := a.loadContexts(cmd)
			if err != nil {
				return err
			}
			if len(cfg.Contexts) == 0 {
				fmt.Fprintln(a.stderr, "no contexts; create one with `hubsnap context set NAME --hub URL --project P`")
				return nil
			}
			names := make([]string, 0, len(cfg.Contexts))
			for n := range cfg.Contexts {
				names = append(names, n)
			}
			slices.Sort(names)
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
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
		},
	}
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
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
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
		},
	}
}

// loadContexts resolves the config folder and reads the contexts file.
func (a *app) loadContexts(cmd *cobra.Command) (string, *config, error) {
	s, err := a.resolve(cmd)
	if err != nil {
		return "", nil, err
	}
	if s.configDir.v == "" {
		return "", nil, usageErrorf("no config folder: set --config-dir or %s (HOME is not set)", envConfigDir)
	}
	cfg, err := loadConfig(s.configDir.v)
	return s.configDir.v, cfg, err
}

func quoteArg(s string) string { return fmt.Sprintf("%q", s) }
