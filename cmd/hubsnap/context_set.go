package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// contextSetOptions is what `hubsnap context set` works with.
type contextSetOptions struct {
	Stdin          io.Reader // read for TokenStdin
	Stdout, Stderr io.Writer
	ConfigDir      string
	Name           string
	// Hub, Project and Environment are the flags given, nil for those not
	// given: only the settings given change.
	Hub, Project, Environment *string
	// TokenFile is --token-file: nil when not given, "" to forget the token.
	TokenFile  *string
	TokenStdin bool // --token-stdin
}

func (a *app) newContextSetCommand() *cobra.Command {
	opts := &contextSetOptions{}
	var tokenFile string
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
			var err error
			if opts.ConfigDir, err = a.folders(cmd).needConfigDir(); err != nil {
				return err
			}
			opts.Stdin, opts.Stdout, opts.Stderr, opts.Name = a.stdin, a.stdout, a.stderr, argv[0]
			opts.Hub = changed(cmd, "hub", a.flags.hub)
			opts.Project = changed(cmd, "project", a.flags.project)
			opts.Environment = changed(cmd, "environment", a.flags.environment)
			opts.TokenFile = changed(cmd, "token-file", tokenFile)
			return runContextSet(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "file that holds the Hub token")
	cmd.Flags().BoolVar(&opts.TokenStdin, "token-stdin", false, "read the Hub token from standard input and keep it")
	return cmd
}

// runContextSet creates or changes a context in the contexts file of
// opts.ConfigDir, keeping a token from standard input in tokens/NAME.
func runContextSet(_ context.Context, opts *contextSetOptions) error {
	name, dir := opts.Name, opts.ConfigDir
	if err := indexer.CheckName("context name", name); err != nil {
		return err
	}
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	c, existed := cfg.Contexts[name]
	if !existed {
		c = &contextConfig{}
	}
	if opts.TokenFile != nil && opts.TokenStdin {
		return usageErrorf("give either --token-file or --token-stdin, not both")
	}
	if opts.Hub != nil {
		if _, err := hub.New(*opts.Hub, hub.Options{}); err != nil {
			return fmt.Errorf("--hub: %w", err)
		}
		c.Hub = strings.TrimRight(*opts.Hub, "/")
	}
	if opts.Project != nil {
		if err := indexer.CheckName("--project", *opts.Project); err != nil {
			return err
		}
		c.Project = *opts.Project
	}
	if opts.Environment != nil {
		if err := indexer.CheckName("--environment", *opts.Environment); err != nil {
			return err
		}
		c.Environment = *opts.Environment
	}
	if c.Hub == "" || c.Project == "" {
		return usageErrorf("context %q needs --hub and --project", name)
	}
	ours := filepath.Join("tokens", name) // where --token-stdin keeps the token
	switch {
	case opts.TokenStdin:
		t, err := readToken(opts.Stdin, opts.Stderr, name)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, "tokens"), 0o700); err != nil {
			return fmt.Errorf("save the token: %w", err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, ours), []byte(t+"\n")); err != nil {
			return fmt.Errorf("save the token: %w", err)
		}
		c.TokenFile = ours
	case opts.TokenFile != nil && *opts.TokenFile == "":
		c.TokenFile = ""
		os.Remove(filepath.Join(dir, ours)) // forget means forget
	case opts.TokenFile != nil:
		abs, err := filepath.Abs(*opts.TokenFile)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return usageErrorf("--token-file: %v", err)
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
	fmt.Fprintf(opts.Stdout, "context %q %s%s\n", name, verb, note)
	return nil
}

// readToken reads the Hub token of context name for --token-stdin: from a
// terminal, one line after a prompt on stderr; from a pipe, the whole
// input, which must be the token alone.
func readToken(stdin io.Reader, stderr io.Writer, name string) (string, error) {
	terminal := isTerminal(stdin)
	if terminal {
		fmt.Fprintf(stderr, "Paste the Hub token for context %q and press Enter: ", name)
	}
	in := bufio.NewReader(io.LimitReader(stdin, 64<<10))
	line, err := in.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read the token: %w", err)
	}
	var rest []byte
	if !terminal {
		rest, _ = io.ReadAll(in)
	}
	t := strings.TrimSpace(line)
	if t == "" || strings.ContainsAny(t, " \t") || strings.TrimSpace(string(rest)) != "" {
		return "", usageErrorf("--token-stdin: standard input must hold the token alone, on one line")
	}
	return t, nil
}

// changed returns the value of the flag name when it was given, else nil.
func changed(cmd *cobra.Command, name, v string) *string {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}
