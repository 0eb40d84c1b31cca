package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

// PostgreSQL's parser is compiled once per cache, into {cache}/parser, and
// the compile holds about 250 MiB for two seconds, more than an import of
// a small release holds in all. So hubsnap compiles it in a child process,
// `hubsnap index compile-parser DIR`, and the process that analyses logics
// loads the compiled code (about 30 MiB). See indexer/analysis/compile.go
// and docs/design.md, "Logic analysis at index time".

// newCompileParserCommand is `hubsnap index compile-parser DIR
// [--guarded]`, hidden: the child compileParserInChild runs.
func (a *app) newCompileParserCommand() *cobra.Command {
	var guarded bool
	cmd := &cobra.Command{
		Use:    "compile-parser DIR [--guarded]",
		Short:  "Compile PostgreSQL's parser into a compilation cache folder",
		Hidden: true,
		Args:   args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return analysis.Compile(cmd.Context(), argv[0], guarded)
		},
	}
	cmd.Flags().BoolVar(&guarded, "guarded", false, "the engine for long SQL, whose calls a deadline can stop")
	return cmd
}

// compileParserInChild runs `hubsnap index compile-parser dir` with this
// same binary and waits for it (analysis.SetCompiler). A failure is logged;
// the caller then compiles the parser itself.
func compileParserInChild(ctx context.Context, dir string, guarded bool) error {
	exe, err := os.Executable()
	if err == nil {
		argv := []string{"index", "compile-parser", dir}
		if guarded {
			argv = append(argv, "--guarded")
		}
		cmd := exec.CommandContext(ctx, exe, argv...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		err = cmd.Run()
	}
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("compiling the parser in a child process: %w", err)
		slog.Default().Warn("compiling PostgreSQL's parser here instead", "err", err)
	}
	return err
}
