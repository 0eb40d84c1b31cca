package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// app is what every command shares: the standard streams, the environment
// and the global flags. Tests build one with their own streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	flags          globalFlags
	log            *slog.Logger
}

// run runs hubsnap with args and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	root := a.newRootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "hubsnap: %s\n", oneLine(err.Error()))
	if _, ok := errors.AsType[*usageError](err); ok {
		return exitUsage
	}
	return exitError
}

func (a *app) newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "hubsnap",
		Short: "Offline release snapshots of the Hub, served to AI assistants over MCP",
		Long: `hubsnap pulls release snapshots (tables, columns, keys, logics) from the Hub
into a local cache: sanitized release files plus a SQLite index. Assistants
then read them through MCP, offline and fast.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			level := slog.LevelWarn
			if a.flags.verbose {
				level = slog.LevelDebug
			}
			a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	a.flags.register(root)
	root.AddCommand(
		a.newSnapshotCommand(),
		a.newServeCommand(),
		a.newDemoCommand(),
		a.newContextCommand(),
		a.newTokenCommand(),
		a.newVersionCommand(),
	)
	group(root)
	return root
}

// group makes a command that only holds subcommands print its help when
// called alone and fail as a usage error (exit 2) on an unknown subcommand.
func group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		if len(argv) > 0 {
			hint := ""
			if s := cmd.SuggestionsFor(argv[0]); len(s) > 0 {
				hint = "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return usageErrorf("unknown command %q for %q%s (see %s --help)", argv[0], cmd.CommandPath(), hint, cmd.CommandPath())
		}
		return cmd.Help()
	}
	return cmd
}

// usageError is a mistake in how hubsnap was called: it exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// args wraps a cobra argument check so its failures exit 2.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return &usageError{fmt.Sprintf("%s (see %s --help)", err, cmd.CommandPath())}
		}
		return nil
	}
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
