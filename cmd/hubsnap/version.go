package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// A release build stamps these with -ldflags -X (.goreleaser.yaml): the
// tag, the full commit hash and the commit's date (RFC 3339). They are the
// only package variables of this command because -X can set nothing else.
// Any other build (go build, go install ...@vX) leaves them empty, and the
// version comes from the build info as before (docs/release.md).
var (
	buildVersion string
	buildCommit  string
	buildDate    string
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

// build describes how this binary was built.
type build struct {
	version  string // the tag, the module version, or "(devel)"
	commit   string // the VCS revision, "" when none was recorded
	date     string // the commit's date, "" when none was recorded
	modified bool   // built from a modified work tree
}

// thisBuild is this binary's build: the release stamp when there is one,
// else the build info that go build and go install record (never a mix of
// the two).
func thisBuild() build {
	if buildVersion != "" {
		return build{version: buildVersion, commit: buildCommit, date: buildDate}
	}
	b := build{version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if bi.Main.Version != "" {
		b.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.time":
			b.date = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// version is this build's version: the release's tag, the module version
// of go install ...@vX, or "(devel)" for a plain go build. It is also the
// MCP server's serverInfo.version.
func version() string {
	return thisBuild().version
}

// versionString describes this build in one line.
func versionString() string {
	return thisBuild().describe(runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
}

// describe is b in one line: "hubsnap VERSION (rev COMMIT, DATE) GO
// OS/ARCH", the parenthesis only when a commit was recorded.
func (b build) describe(goVersion, platform string) string {
	extra := ""
	if b.commit != "" {
		rev := b.commit
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.modified {
			rev += "+dirty"
		}
		extra = " (rev " + rev
		if b.date != "" {
			extra += ", " + b.date
		}
		extra += ")"
	}
	return fmt.Sprintf("hubsnap %s%s %s %s", b.version, extra, goVersion, platform)
}
