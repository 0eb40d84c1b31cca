package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

// jitMappings returns the anonymous executable mappings of process pid:
// a Go program has none, except the machine code wazero compiles, which
// is where PostgreSQL's parser runs (indexer/analysis).
func jitMappings(tb testing.TB, pid string) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join("/proc", pid, "maps"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// address perms offset dev inode [path]
		if len(fields) == 5 && strings.Contains(fields[1], "x") && fields[4] == "0" {
			out = append(out, sc.Text())
		}
	}
	return out
}

// TestJITMappingsSeeTheParser is the check's control: a process that
// compiled the parser has anonymous executable mappings.
func TestJITMappingsSeeTheParser(t *testing.T) {
	ctx := context.Background()
	a, err := analysis.New(ctx, analysis.Options{CacheDir: filepath.Join(os.TempDir(), "hubsnap-analysis-test-wazero")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	if got := jitMappings(t, "self"); len(got) == 0 {
		t.Error("no anonymous executable mapping after compiling the parser: the check would see nothing")
	}
}

// TestServeNeverParses: serve indexes a release with postgres logics
// (here: its index rebuilt from the release files) with the analysis
// pending, never loads PostgreSQL's parser itself, and has its child
// `hubsnap index analyze` write the analysis while it serves.
func TestServeNeverParses(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	index := filepath.Join(c.cacheDir(), "index.db")
	if err := os.Remove(index); err != nil { // serve indexes the files again
		t.Fatal(err)
	}
	p := startChild(t, c, "serve")
	defer p.stdin.Close()
	pid := fmt.Sprint(p.cmd.Process.Pid)

	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(index)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(sessionLimit)
	state := ""
	for state != "done" {
		if time.Now().After(deadline) {
			t.Fatalf("the release's analysis is %q after %s; serve's stderr: %s", state, sessionLimit, p.stderr)
		}
		select {
		case <-p.done:
			t.Fatalf("serve exited: %s", p.stderr)
		case <-time.After(20 * time.Millisecond): // polling the index another process writes
		}
		if got := jitMappings(t, pid); len(got) > 0 {
			t.Fatalf("serve compiled code at run time (the parser):\n%s", strings.Join(got, "\n"))
		}
		err := db.QueryRow(`SELECT a.state FROM release_analysis a JOIN releases r ON r.id = a.release
			WHERE r.release_id = 'rel_42'`).Scan(&state)
		if err != nil && err != sql.ErrNoRows && !strings.Contains(err.Error(), "no such table") {
			t.Logf("read the index: %v", err)
		}
	}
	var logics int
	if err := db.QueryRow(`SELECT count(*) FROM logic_analysis`).Scan(&logics); err != nil || logics == 0 {
		t.Errorf("%d analysed logics, %v; want the release's", logics, err)
	}
	if got := jitMappings(t, pid); len(got) > 0 {
		t.Errorf("serve compiled code at run time (the parser):\n%s", strings.Join(got, "\n"))
	}
	p.stdin.Close()
	p.wait(t, signalLimit)
	noPanic(t, "serve", p.stderr.String())
}
