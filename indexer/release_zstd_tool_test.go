package indexer

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// zstdTool runs the reference zstd program with args on stdin and returns
// its output. A machine without it skips the test (.ci/run installs it).
func zstdTool(tb testing.TB, stdin []byte, args ...string) []byte {
	tb.Helper()
	path, err := exec.LookPath("zstd")
	if err != nil {
		tb.Skip("zstd is not installed (apt-get install zstd); .ci/run installs it")
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("zstd %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// The compressed release files are zstd's own format, both ways: `zstd
// -dc` prints what hubsnap wrote, and a file a person compressed with
// `zstd -19` is read; one that asks for a window over 8 MiB (`--long=27`)
// is skipped with a warning, and the other releases are served.
func TestZstdToolReadsAndWritesReleaseFiles(t *testing.T) {
	setPackThreshold(t, 1000)
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	folder := filepath.Join(dir, "releases/shop")
	path := filepath.Join(folder, "rel_41.json.zst")
	if got, want := string(zstdTool(t, []byte(readFile(t, path)), "-dc")), readRelease(t, path); got != want {
		t.Errorf("zstd -dc prints %d bytes, want the %d of the release document", len(got), len(want))
	}

	putFile(t, dir, "shop", "rel_42.json.zst", zstdTool(t, commented(t, "rel_42", 42, "zstd -19"), "-q", "-19", "-c"))
	putFile(t, dir, "shop", "dev.current", []byte("rel_42\n"))
	if got := postsComment(t, dir); got != "zstd -19" {
		t.Errorf("from a file of zstd -19: comment %q", got)
	}

	putFile(t, dir, "shop", "rel_43.json.zst", zstdTool(t, shopDoc(t, "rel_43", 43, nil), "-q", "--long=27", "-c"))
	c := openCache(t, dir)
	list, err := c.Releases(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); len(got) != 2 || got[0] != "rel_42" || got[1] != "rel_41" {
		t.Errorf("releases = %v, want rel_42 and rel_41 (rel_43's window is too large)", got)
	}
}
