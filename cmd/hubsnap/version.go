package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionOptions is what `hubsnap version` works with.
type versionOptions struct {
	Stdout io.Writer
}

func (a *app) newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hubsnap's version",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(cmd.Context(), &versionOptions{Stdout: a.stdout})
		},
	}
}

// runVersion prints versionString.
func runVersion(_ context.Context, opts *versionOptions) error {
	_, err := fmt.Fprintln(opts.Stdout, versionString())
	return err
}

// version is the module version of this build, "(devel)" when built from
// a checkout.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionString describes this build from its embedded build info.
func versionString() string {
	version, extra := version(), ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			extra = " rev " + rev + modified
		}
	}
	return fmt.Sprintf("hubsnap %s%s %s %s/%s", version, extra, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
