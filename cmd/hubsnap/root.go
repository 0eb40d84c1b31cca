package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

// main sets how this binary compiles PostgreSQL's parser (in a child:
// index_parser.go), then run does the work; tests call run.
func main() {
	analysis.SetCompiler(compileParserInChild)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// app is what the commands' RunE functions resolve Options from: the
// standard streams, the environment, the global flags and the logger they
// ask for. Run functions never see it: their Options hold all they use.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	flags          globalFlags
	log            *slog.Logger
}

// run runs hubsnap with args and returns the exit code. A failure prints
// one line, "hubsnap: " and the error, on stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	root := a.newRootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "hubsnap: %s\n", oneLine(err.Error()))
	}
	return exitCode(err)
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	a.flags.register(root)
	root.AddCommand(
		a.newSnapshotCommand(),
		a.newServeCommand(),
		a.newDemoCommand(),
		a.newContextCommand(),
		a.newTokenCommand(),
		a.newIndexCommand(),
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

// args wraps a cobra argument check so its failures exit 2.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageErrorf("%s (see %s --help)", err, cmd.CommandPath())
		}
		return nil
	}
}
