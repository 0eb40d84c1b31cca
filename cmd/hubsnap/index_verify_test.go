package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flipInIndex flips a byte of the first stored JSON of the column name in
// c's index, in place, keeping the file's size and time (the stamp).
func flipInIndex(tb testing.TB, c *cli, column string) {
	tb.Helper()
	path := filepath.Join(c.cacheDir(), "index.db")
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	at := strings.Index(string(data), `{"name":"`+column+`"`)
	if at < 0 {
		tb.Fatalf("the index holds no column %s", column)
	}
	damage(tb, c, sweepCase{kind: "stored JSON", pages: []int64{0}, offs: []int64{int64(at + 10)}, masks: []byte{0x01}})
}

// TestIndexVerify runs hubsnap index verify through the real binary: a
// healthy index exits 0; a damaged page is listed and exits 1 with one
// line on stderr; --repair repairs it and exits 0.
func TestIndexVerify(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	r := runChild(t, c, "", "index", "verify")
	if r.code != exitOK || !strings.Contains(r.stdout, "healthy") {
		t.Fatalf("index verify of a healthy index: exit %d; stdout %q; stderr %q", r.code, r.stdout, r.stderr)
	}

	flipInIndex(t, c, "author_id")
	r = runChild(t, c, "", "index", "verify")
	if r.code != exitError {
		t.Errorf("index verify of a damaged index: exit %d, want 1", r.code)
	}
	mentions(t, "index verify of a damaged index: stdout", r.stdout, "damage (page): page ", "of columns: the page fails its checksum")
	if lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"); len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "hubsnap: the index is damaged") || !strings.Contains(lines[0], "hubsnap index verify --repair") {
		t.Errorf("index verify of a damaged index: stderr %q, want one line naming index verify --repair", r.stderr)
	}

	r = runChild(t, c, "", "index", "verify", "--repair", "--json")
	var rep struct {
		Damage   []struct{ Kind, What string } `json:"damage"`
		Repaired bool                          `json:"repaired"`
		Healthy  bool                          `json:"healthy"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.Repaired || !rep.Healthy || len(rep.Damage) == 0 {
		t.Errorf("index verify --repair: exit %d; stdout %q; stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runChild(t, c, "", "index", "verify")
	if r.code != exitOK {
		t.Errorf("index verify after the repair: exit %d; stdout %q; stderr %q", r.code, r.stdout, r.stderr)
	}

	r = runChild(t, c.with("HUBSNAP_CACHE_DIR", filepath.Join(t.TempDir(), "none")), "", "index", "verify")
	if r.code != exitError || !strings.HasPrefix(r.stderr, "hubsnap: no cache in ") {
		t.Errorf("index verify without a cache: exit %d; stderr %q", r.code, r.stderr)
	}
	if r := runChild(t, c, "", "index", "verify", "--fix"); r.code != exitUsage {
		t.Errorf("index verify --fix: exit %d, want 2", r.code)
	}
}

// TestServeRepairsDamage: a call of hubsnap serve (stdio, the real
// binary) that meets a damaged page answers INTERNAL, the server repairs
// the index in the background, and the same call then answers right.
func TestServeRepairsDamage(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	call := sweepCall{"schema_get_table", map[string]any{"table": "posts"}}
	s := startStdio(t, c.with("HUBSNAP_PROJECT", "shop", "HUBSNAP_ENVIRONMENT", "dev"))
	want := s.call(t, call)
	s.close(t)
	if want.isError || want.hang {
		t.Fatalf("posts: %s", want.describe())
	}

	flipInIndex(t, c, "author_id")
	s = startStdio(t, c.with("HUBSNAP_PROJECT", "shop", "HUBSNAP_ENVIRONMENT", "dev"))
	if got := s.call(t, call); judge(want, got) != outInternal {
		t.Errorf("posts from a damaged page: %s, want INTERNAL", got.describe())
	}
	if !waitFor(s.log, "repaired the index", repairLimit) {
		t.Fatalf("no repair within %v; stderr:\n%s", repairLimit, s.log())
	}
	if got := s.call(t, call); judge(want, got) != outRight {
		t.Errorf("posts after the repair: %s", got.describe())
	}
	stderr := s.close(t)
	mentions(t, "serve's log", stderr, "tool failed", "fails its checksum", "a call met a damaged index", "repaired the index")
}
