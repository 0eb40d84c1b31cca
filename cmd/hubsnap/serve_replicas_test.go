package main

// Two replicas of serve --http --stateless --sync-every, each with its own
// cache, behind a real nginx (round-robin, no sticky sessions), as
// docs/deploy.md describes.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nginxInstallLimit bounds the install of the Debian package.
const nginxInstallLimit = 5 * time.Minute

// findNginx returns the nginx binary. When there is none and the test runs
// as root on Debian, it installs the package (nginx-light, else nginx);
// otherwise, or when that fails, it skips the test with one line.
func findNginx(tb testing.TB) string {
	tb.Helper()
	skip := func(why string) { tb.Skip("nginx: SKIPPED, " + why) }
	look := func() string {
		if p, err := exec.LookPath("nginx"); err == nil {
			return p
		}
		if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
			return "/usr/sbin/nginx"
		}
		return ""
	}
	if p := look(); p != "" {
		return p
	}
	apt, err := exec.LookPath("apt-get")
	switch {
	case err != nil:
		skip("not installed, and there is no apt-get to install it")
	case os.Geteuid() != 0:
		skip("not installed, and installing the Debian package needs root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), nginxInstallLimit)
	defer cancel()
	install := func(pkg string) error {
		cmd := exec.CommandContext(ctx, apt, "install", "-y", "--no-install-recommends", pkg)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get install %s: %v: %s", pkg, err, lastLines(out, 1))
		}
		return nil
	}
	var errs []error
	for _, pkg := range []string{"nginx-light", "nginx"} {
		err := install(pkg)
		if err != nil { // stale package lists: update once, and try again
			if uerr := exec.CommandContext(ctx, apt, "update").Run(); uerr == nil {
				err = install(pkg)
			}
		}
		if err == nil {
			if p := look(); p != "" {
				tb.Logf("nginx: installed the Debian package %s", pkg)
				return p
			}
		}
		errs = append(errs, err)
	}
	skip(fmt.Sprintf("cannot install it: %v", errors.Join(errs...)))
	return ""
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// nginxConf is the configuration of the tests' nginx, in its own folder:
// round-robin over the replicas, as in docs/deploy.md.
const nginxConf = `daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
    client_body_temp_path %[1]s/tmp/body;
    proxy_temp_path %[1]s/tmp/proxy;
    fastcgi_temp_path %[1]s/tmp/fastcgi;
    uwsgi_temp_path %[1]s/tmp/uwsgi;
    scgi_temp_path %[1]s/tmp/scgi;
    log_format upstream '$request $status $upstream_addr';
    access_log %[1]s/access.log upstream;
    upstream hubsnap {
%[2]s        keepalive 16;
    }
    server {
        listen 127.0.0.1:%[3]d;
        location / {
            proxy_pass http://hubsnap;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The replicas listen on loopback: DNS-rebinding protection
            # wants a loopback Host there.
            proxy_set_header Host localhost;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }
    }
}
`

// startNginx runs nginx in front of the replicas at urls and returns its
// MCP URL. It is stopped when the test ends (and killed with the test
// process, on Linux).
func startNginx(tb testing.TB, bin string, urls []string) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var servers strings.Builder
	for _, u := range urls {
		fmt.Fprintf(&servers, "        server %s;\n", strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp"))
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxConf, dir, servers.String(), port), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	dieWithTest(cmd)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start nginx: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	tb.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT) // graceful stop
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(startLimit)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			tb.Fatalf("nginx exited at start: %s %s", out, errLog)
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("nginx is not listening on %s after %v", addr, startLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

// TestServeReplicasBehindNginx: 200 calls of one go-sdk client through
// nginx are all answered, by both replicas; a release published on the Hub
// reaches both within two ticks of --sync-every.
func TestServeReplicasBehindNginx(t *testing.T) {
	t.Parallel()
	bin := findNginx(t)
	h := newHub(t, release(t, "rel_42", 42))
	var replicas []*httpServe
	var urls []string
	for range 2 {
		s := startHTTPServe(t, hubCLI(t, h), "127.0.0.1:0", "--stateless", "--sync-every", syncTick.String())
		replicas, urls = append(replicas, s), append(urls, s.url)
	}
	front := startNginx(t, bin, urls)
	t.Logf("nginx %s → replicas %s", front, strings.Join(urls, ", "))

	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	hc, _ := clientWithBearer(t, "")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-replicas", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: front, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect through nginx: %v", err)
	}
	defer cs.Close()
	const calls, workers = 200, 4
	var mu sync.Mutex
	var failures []string
	answered := 0
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for i := range calls / workers {
				tool, args := "schema_get_table", map[string]any{"table": "posts"}
				if (w+i)%2 == 0 {
					tool, args = "release_info", map[string]any{}
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				mu.Lock()
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", tool, err))
				case res.IsError:
					failures = append(failures, fmt.Sprintf("%s: %s", tool, toolText(res)))
				default:
					answered++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	// A replica logs a request once it is done, a moment after the client
	// has its answer: wait for every line.
	var perReplica []int
	for deadline := time.Now().Add(startLimit); ; {
		perReplica = make([]int, len(replicas))
		total := 0
		for i, s := range replicas {
			for _, l := range requestLog(s.stderr.String()) {
				if l["rpc"] == "tools/call" && l["status"] == "200" {
					perReplica[i]++
					total++
				}
			}
		}
		if total >= answered || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d calls through nginx in %v: %d answered, %d errors; tools/call per replica %v",
		calls, took.Round(time.Millisecond), answered, len(failures), perReplica)
	if answered != calls || len(failures) > 0 {
		t.Errorf("%d of %d calls answered; errors: %q", answered, calls, failures)
	}
	for i, n := range perReplica {
		if n < calls/4 {
			t.Errorf("replica %d answered %d of %d calls; want round-robin over both", i, n, calls)
		}
	}

	// A client of 2025-11-25 is served too: --stateless gives it no session
	// to lose when nginx sends its next request to the other replica.
	legacy, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-replicas-2025", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: front, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect through nginx with 2025-11-25: %v", err)
	}
	for range 20 {
		if got := releaseOf(t, ctx, legacy); got != "rel_42" {
			t.Errorf("a 2025-11-25 client through nginx: release_info %s", got)
		}
	}
	legacy.Close()

	// A new release on the Hub reaches both replicas within two ticks.
	h.Add("shop", release(t, "rel_43", 43))
	published := time.Now()
	var wait sync.WaitGroup
	seen := make([]time.Duration, len(replicas))
	for i, s := range replicas {
		wait.Go(func() {
			seen[i] = waitServed(t, fmt.Sprintf("replica %d", i), syncWithin, "rel_43", func() string { return servedRelease(t, s.url) })
		})
	}
	wait.Wait()
	t.Logf("rel_43 served by the replicas %v and %v after it was published (--sync-every %v)",
		seen[0].Round(time.Millisecond), seen[1].Round(time.Millisecond), syncTick)
	for range 10 { // and through nginx, whichever replica answers
		if got := releaseOf(t, ctx, cs); got != "rel_43" {
			t.Errorf("through nginx %v after publishing: %s, want rel_43", time.Since(published), got)
		}
	}
	for i, s := range replicas {
		if code, _ := s.stop(t); code != exitOK {
			t.Errorf("replica %d: exit %d; stderr: %s", i, code, s.stderr)
		}
		noPanic(t, fmt.Sprintf("replica %d", i), s.stderr.String())
	}
}
