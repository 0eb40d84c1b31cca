package main

import (
	"strings"
	"testing"
)

func TestVersionDescribe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		b    build
		want string
	}{
		{"go build without VCS", build{version: "(devel)"},
			"hubsnap (devel) go1.26.8 linux/amd64"},
		{"go install ...@v1.2.0", build{version: "v1.2.0"},
			"hubsnap v1.2.0 go1.26.8 linux/amd64"},
		{"go build in a modified checkout", build{version: "v0.0.0-20261128093000-0123456789ab+dirty",
			commit: "0123456789abcdef0123456789abcdef01234567", date: "2026-11-28T09:30:00Z", modified: true},
			"hubsnap v0.0.0-20261128093000-0123456789ab+dirty (rev 0123456789ab+dirty, 2026-11-28T09:30:00Z) go1.26.8 linux/amd64"},
		{"release", build{version: "v1.2.0", commit: "0123456789abcdef0123456789abcdef01234567", date: "2026-11-28T09:30:00Z"},
			"hubsnap v1.2.0 (rev 0123456789ab, 2026-11-28T09:30:00Z) go1.26.8 linux/amd64"},
		{"a commit without a date", build{version: "v1.2.0", commit: "abc"},
			"hubsnap v1.2.0 (rev abc) go1.26.8 linux/amd64"},
	} {
		if got := tc.b.describe("go1.26.8", "linux/amd64"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The release stamp (-ldflags -X, .goreleaser.yaml) wins over the build
// info, for `hubsnap version` and for the MCP server's serverInfo.version
// alike (both read version()).
func TestVersionStamped(t *testing.T) {
	// Not parallel: it sets the package variables that -X sets.
	if got := version(); got == "" {
		t.Fatalf("unstamped version() is empty")
	}
	defer func(v, c, d string) { buildVersion, buildCommit, buildDate = v, c, d }(buildVersion, buildCommit, buildDate)
	buildVersion, buildCommit, buildDate = "v9.8.7", "fedcba9876543210fedcba9876543210fedcba98", "2026-12-01T00:00:00Z"
	if got, want := version(), "v9.8.7"; got != want {
		t.Errorf("version() = %q, want %q", got, want)
	}
	r := newCLI(t).ok("version")
	if want := "hubsnap v9.8.7 (rev fedcba987654, 2026-12-01T00:00:00Z) go"; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("hubsnap version = %q, want it to start with %q", r.stdout, want)
	}
}
