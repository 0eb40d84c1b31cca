package browsertest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Chromium is the browser the tests use: Debian's package, never one that
// playwright downloads.
const Chromium = "/usr/bin/chromium"

// WebDir returns the folder of the page's npm build (../web).
func WebDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "web")
}

// Ready skips tb unless Chromium and node are installed and the npm
// packages of ../web are (or can be) installed, and returns ../web.
func Ready(tb testing.TB) string {
	tb.Helper()
	if _, err := os.Stat(Chromium); err != nil {
		tb.Skipf("skipped: no Chromium at %s (apt-get install chromium; .ci/run does)", Chromium)
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("skipped: no node to drive Chromium (.ci/run has it)")
	}
	dir := WebDir()
	if err := install(dir); err != nil {
		tb.Skipf("skipped: cannot install the npm packages of %s (is the npm registry reachable?): %v", dir, err)
	}
	return dir
}

// install runs npm ci in dir unless its packages are installed, one
// process at a time (test binaries of several packages run at once).
func install(dir string) error {
	unlock, err := lock(filepath.Join(os.TempDir(), "hubsnap-diagram-npm.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err == nil {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return &installError{err, lastLine(out)}
	}
	return nil
}

type installError struct {
	err  error
	last string
}

func (e *installError) Error() string { return e.err.Error() + ": " + e.last }

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}

// Node runs the script ../web/test/NAME with stdin and extra environment
// variables (KEY=VALUE), within limit, and returns its standard output. A
// failure fails tb with the script's standard error.
func Node(tb testing.TB, name string, stdin []byte, limit time.Duration, env ...string) []byte {
	tb.Helper()
	dir := Ready(tb)
	cmd := exec.Command("node", filepath.Join("test", name))
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CHROMIUM="+Chromium), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("node %s: %v\n%s", name, err, stderr.String())
		}
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		tb.Fatalf("node %s did not finish within %v\n%s", name, limit, stderr.String())
	}
	return stdout.Bytes()
}
