package main

import (
	"bytes"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// cli runs hubsnap in process with its own environment. It never reads the
// real environment: HOME and the cache and config folders are temp folders.
type cli struct {
	tb  testing.TB
	env map[string]string
	// secrets must never appear on stdout or stderr of any run.
	secrets []string
}

// newCLI returns a cli whose HOME, HUBSNAP_CACHE_DIR and HUBSNAP_CONFIG_DIR
// are fresh temp folders (the cache and config folders do not exist yet).
func newCLI(tb testing.TB) *cli {
	tb.Helper()
	root := tb.TempDir()
	return &cli{tb: tb, env: map[string]string{
		"HOME":               filepath.Join(root, "home"),
		"HUBSNAP_CACHE_DIR":  filepath.Join(root, "cache"),
		"HUBSNAP_CONFIG_DIR": filepath.Join(root, "config"),
	}}
}

// clone returns a copy of c with its own environment, for runs that
// change a variable or two.
func (c *cli) clone() *cli {
	return &cli{tb: c.tb, env: maps.Clone(c.env), secrets: c.secrets}
}

// on returns a copy of c that reports to tb, for subtests.
func (c *cli) on(tb testing.TB) *cli {
	d := c.clone()
	d.tb = tb
	return d
}

// with returns a copy of c with the given variables set ("" removes one).
func (c *cli) with(kv ...string) *cli {
	c.tb.Helper()
	if len(kv)%2 != 0 {
		c.tb.Fatalf("with: odd number of arguments %q", kv)
	}
	d := c.clone()
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(d.env, kv[i])
		} else {
			d.env[kv[i]] = kv[i+1]
		}
	}
	return d
}

func (c *cli) cacheDir() string  { return c.env["HUBSNAP_CACHE_DIR"] }
func (c *cli) configDir() string { return c.env["HUBSNAP_CONFIG_DIR"] }

// result is what one run of hubsnap did.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

// msg is the error message without the "hubsnap: " prefix and newline.
func (r result) msg() string {
	return strings.TrimSuffix(strings.TrimPrefix(r.stderr, "hubsnap: "), "\n")
}

// lines splits stdout into lines, without the final newline.
func (r result) lines() []string {
	s := strings.TrimSuffix(r.stdout, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// runIn runs hubsnap with stdin and checks what holds for every run: exit
// code 0, 1 or 2; no secret on either stream; a failure prints nothing on
// stdout (but the findings of snapshot check) and exactly one line on
// stderr starting "hubsnap: ".
func (c *cli) runIn(stdin string, args ...string) result {
	c.tb.Helper()
	var stdout, stderr bytes.Buffer
	env := maps.Clone(c.env)
	getenv := func(k string) string { return env[k] }
	code := run(args, strings.NewReader(stdin), &stdout, &stderr, getenv)
	r := result{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
	for _, s := range c.secrets {
		if strings.Contains(r.stdout, s) {
			c.tb.Errorf("hubsnap %q: stdout shows the secret %q:\n%s", args, s, r.stdout)
		}
		if strings.Contains(r.stderr, s) {
			c.tb.Errorf("hubsnap %q: stderr shows the secret %q:\n%s", args, s, r.stderr)
		}
	}
	switch code {
	case exitOK:
	case exitError, exitUsage:
		// snapshot check exits 1 on findings, which it prints (a CI check).
		if r.stdout != "" && !(code == exitError && slices.Contains(args, "check") && slices.Contains(args, "snapshot")) {
			c.tb.Errorf("hubsnap %q: exit %d with output on stdout (want none):\n%s", args, code, r.stdout)
		}
		if !strings.HasPrefix(r.stderr, "hubsnap: ") || !strings.HasSuffix(r.stderr, "\n") ||
			strings.Count(r.stderr, "\n") != 1 {
			c.tb.Errorf("hubsnap %q: exit %d, stderr = %q, want one line starting \"hubsnap: \"", args, code, r.stderr)
		}
	default:
		c.tb.Errorf("hubsnap %q: exit %d, want 0, 1 or 2", args, code)
	}
	return r
}

func (c *cli) run(args ...string) result {
	c.tb.Helper()
	return c.runIn("", args...)
}

// ok runs hubsnap and fails the test unless it exits 0.
func (c *cli) ok(args ...string) result {
	c.tb.Helper()
	return c.okIn("", args...)
}

func (c *cli) okIn(stdin string, args ...string) result {
	c.tb.Helper()
	r := c.runIn(stdin, args...)
	if r.code != exitOK {
		c.tb.Fatalf("hubsnap %q: exit %d, want 0; stderr: %s", args, r.code, r.stderr)
	}
	return r
}

// fails runs hubsnap and fails the test unless it exits with want.
func (c *cli) fails(want int, args ...string) result {
	c.tb.Helper()
	return c.failsIn(want, "", args...)
}

func (c *cli) failsIn(want int, stdin string, args ...string) result {
	c.tb.Helper()
	r := c.runIn(stdin, args...)
	if r.code != want {
		c.tb.Errorf("hubsnap %q: exit %d, want %d; stdout: %q; stderr: %q", args, r.code, want, r.stdout, r.stderr)
	}
	return r
}

// mentions fails the test unless msg contains every one of words.
func mentions(tb testing.TB, what, msg string, words ...string) {
	tb.Helper()
	for _, w := range words {
		if !strings.Contains(msg, w) {
			tb.Errorf("%s = %q, want it to mention %q", what, msg, w)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.ok("version")
	if got := r.lines(); len(got) != 1 || !strings.HasPrefix(got[0], "hubsnap ") {
		t.Errorf("version: stdout = %q, want one line starting \"hubsnap \"", r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("version: stderr = %q, want nothing", r.stderr)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"frobnicate"},
		{"snapshot", "frobnicate"},
		{"context", "frobnicate"},
		{"--bogus"},
		{"-Z"},
		{"version", "--bogus"},
		{"snapshot", "sync", "--bogus"},
		{"snapshot", "list", "--json=maybe"},
		{"snapshot", "sync", "--timeout", "soon"},
		{"snapshot", "sync", "--timeout", "0s"},
		{"snapshot", "sync", "extra"},
		{"snapshot", "list", "extra"},
		{"snapshot", "use"},
		{"snapshot", "use", "rel_1", "rel_2"},
		{"snapshot", "import"},
		{"snapshot", "import", "a.json", "b.json"},
		{"context", "set"},
		{"context", "set", "a", "b", "--hub", "http://hub.example", "--project", "shop"},
		{"context", "use"},
		{"context", "delete"},
		{"context", "list", "extra"},
		{"context", "show", "extra"},
		{"version", "extra"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			// --timeout 0s is checked after the hub and project are known.
			c = c.with("HUBSNAP_HUB", "http://127.0.0.1:1", "HUBSNAP_PROJECT", "shop")
			c.fails(exitUsage, args...)
		})
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--help"}, {"snapshot"}, {"context"}, {"snapshot", "sync", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			r := c.ok(args...)
			if !strings.Contains(r.stdout, "Usage:") {
				t.Errorf("stdout = %q, want the help", r.stdout)
			}
			if r.stderr != "" {
				t.Errorf("stderr = %q, want nothing", r.stderr)
			}
		})
	}
}

// A command that only reads must not create the cache or config folder.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("context", "show")
	c.ok("context", "list")
	c.ok("snapshot", "list")
	c.ok("snapshot", "list", "--json")
	c.fails(exitError, "snapshot", "use", "rel_42", "--project", "shop")
	for _, dir := range []string{c.cacheDir(), c.configDir(), c.env["HOME"]} {
		if exists(dir) {
			t.Errorf("%s was created by a read-only command", dir)
		}
	}
}

// oneLineRE matches one line of text.
var oneLineRE = regexp.MustCompile(`^[^\n]*\n$`)

func TestErrorsAreOneLine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// A multi-line argument must not break the error onto two lines.
	r := c.fails(exitError, "context", "use", "no\nsuch")
	if !oneLineRE.MatchString(r.stderr) {
		t.Errorf("stderr = %q, want one line", r.stderr)
	}
}
