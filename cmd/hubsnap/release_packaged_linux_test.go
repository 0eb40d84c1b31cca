package main

// The release's hubsnap run as an MCP client would run it (docs/release.md),
// when .ci/package check names what it built and installed:
//
//   - HUBSNAP_DIST: dist/ (see release_test.go), for the version;
//   - HUBSNAP_PACKAGED_BIN: hubsnap unpacked from the linux/amd64 archive;
//   - HUBSNAP_PACKAGED_NPM: a folder where the npm packages were installed
//     from their tarballs, offline (node_modules/.bin/hubsnap is the
//     launcher, and `npx hubsnap` runs it);
//   - HUBSNAP_PACKAGED_BUNDLE: the MCP Bundle unpacked by its own CLI, and
//     MCPB_MODULE: the bundle format's module, whose getMcpConfigForManifest
//     (the code Claude Desktop runs) says how the bundle is started.
//
// Each runs a real stdio MCP session with the go-sdk client, and the
// launcher also has to pass on arguments, stdin, stdout, exit codes and
// signals.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// packaged is what .ci/package check hands the tests, or a skip.
type packaged struct {
	dist             *dist
	bin, npm, bundle string
	parserDir        string // one compile of the parser for every packaged hubsnap
}

func openPackaged(t *testing.T) *packaged {
	t.Helper()
	p := &packaged{bin: os.Getenv("HUBSNAP_PACKAGED_BIN"), npm: os.Getenv("HUBSNAP_PACKAGED_NPM"),
		bundle: os.Getenv("HUBSNAP_PACKAGED_BUNDLE")}
	if p.bin == "" || p.npm == "" || p.bundle == "" || os.Getenv("MCPB_MODULE") == "" {
		t.Skip("HUBSNAP_PACKAGED_BIN, HUBSNAP_PACKAGED_NPM, HUBSNAP_PACKAGED_BUNDLE and MCPB_MODULE are not set: " +
			".ci/package check sets them")
	}
	p.dist = openDist(t)
	p.parserDir = t.TempDir()
	return p
}

// env is the whole environment of a packaged hubsnap: c's variables, PATH
// (for node and npx), the shared parser folder, and extra ("NAME=value").
func (p *packaged) env(c *cli, extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HUBSNAP_PARSER_DIR=" + p.parserDir}
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	return append(env, extra...)
}

// launcher is the npm launcher as npm installed it.
func (p *packaged) launcher() string {
	return filepath.Join(p.npm, "node_modules", ".bin", "hubsnap")
}

// session runs an MCP session with cmd: the server must be the release's
// hubsnap, offer the bundle manifest's tools and serve rel_42.
func (p *packaged) session(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	session, err := mcp.NewClient(&mcp.Implementation{Name: "release-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: signalLimit}, nil)
	if err != nil {
		t.Fatalf("connect to %q: %v; stderr: %s", cmd.Args, err, stderr)
	}
	defer session.Close()
	info := session.InitializeResult().ServerInfo
	if want := "v" + p.dist.meta.Version; info.Name != "hubsnap" || info.Version != want {
		t.Errorf("serverInfo = %s %s, want hubsnap %s", info.Name, info.Version, want)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v; stderr: %s", err, stderr)
	}
	var m bundleManifest
	readJSON(t, filepath.Join(p.bundle, "manifest.json"), &m)
	var got, want []string
	for _, tool := range tools.Tools {
		got = append(got, tool.Name)
	}
	for _, tool := range m.Tools {
		want = append(want, tool.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("tools %q, the bundle's manifest lists %q", got, want)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("release_info: %v %+v; stderr: %s", err, res, stderr)
	}
	var rel struct{ ID, Project, Environment string }
	if err := json.Unmarshal([]byte(toolText(res)), &rel); err != nil {
		t.Fatal(err)
	}
	if rel.ID != "rel_42" || rel.Project != "shop" || rel.Environment != "dev" {
		t.Errorf("release_info = %+v, want shop/dev rel_42", rel)
	}
	noPanic(t, "serve", stderr.String())
}

// importedCLI is a cli whose cache holds shop.json's rel_42 as current.
func importedCLI(t *testing.T) *cli {
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")
	c.ok("snapshot", "import", shopPath)
	return c
}

// TestPackagedServe runs an MCP session with hubsnap from the archive,
// through `npx hubsnap serve`, and from the MCP Bundle as Claude Desktop
// would start it, with the settings empty (a context gives them) and given.
func TestPackagedServe(t *testing.T) {
	p := openPackaged(t)

	t.Run("archive", func(t *testing.T) {
		c := importedCLI(t)
		cmd := exec.Command(p.bin, "serve")
		cmd.Env = p.env(c)
		p.session(t, cmd)
	})

	t.Run("npx", func(t *testing.T) {
		c := importedCLI(t)
		cmd := exec.Command("npx", "--offline", "-y", "hubsnap", "serve")
		cmd.Dir = p.npm
		cmd.Env = p.env(c, "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"), "npm_config_update_notifier=false")
		p.session(t, cmd)
	})

	// bundleCmd is the bundle's command for the user settings, as the
	// bundle format's code works it out.
	bundleCmd := func(t *testing.T, c *cli, userConfig map[string]string) *exec.Cmd {
		uc, _ := json.Marshal(userConfig)
		out, err := exec.Command("node", filepath.Join(releaseRoot, ".ci", "package.mjs"), "mcp-config", p.bundle, string(uc)).Output()
		if err != nil {
			t.Fatalf("mcp-config: %v", err)
		}
		var config struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		}
		if err := json.Unmarshal(out, &config); err != nil {
			t.Fatalf("mcp-config %s: %v", out, err)
		}
		t.Logf("the bundle runs %q %q with %q", config.Command, config.Args, config.Env)
		if config.Command != filepath.Join(p.bundle, "server", "linux", "hubsnap") {
			t.Errorf("the bundle runs %q, want its linux binary", config.Command)
		}
		cmd := exec.Command(config.Command, config.Args...)
		var extra []string
		for k, v := range config.Env {
			extra = append(extra, k+"="+v)
		}
		cmd.Env = p.env(c, extra...)
		return cmd
	}

	t.Run("bundle with its settings empty", func(t *testing.T) {
		// The settings come from a context, and the first sync from the
		// context's Hub (the default sync interval): Claude Desktop leaves
		// ${user_config.NAME} in the variables, which must not hide the
		// context.
		h := newHub(t, shopDoc(t))
		c := newCLI(t)
		c.ok("context", "set", "work", "--hub", h.URL(), "--project", "shop")
		cmd := bundleCmd(t, c, map[string]string{})
		if !slices.Contains(cmd.Env, "HUBSNAP_PROJECT=${user_config.project}") {
			t.Errorf("the bundle's environment %q: want the placeholder of an empty setting", cmd.Env)
		}
		p.session(t, cmd)
		if len(h.Requests()) == 0 {
			t.Errorf("no sync from the context's Hub")
		}
	})

	t.Run("bundle with its settings given", func(t *testing.T) {
		const token = "hubtok_bundle_3c9e51f0"
		h := newHub(t, shopDoc(t))
		h.Token = token
		c := newCLI(t)
		p.session(t, bundleCmd(t, c, map[string]string{"hub_url": h.URL(), "project": "shop", "environment": "dev",
			"hub_token": token, "sync_every": "1h"}))
		reqs := h.Requests()
		if len(reqs) == 0 {
			t.Fatalf("no sync from the Hub of the settings")
		}
		for _, r := range reqs {
			if r.Authorization != "Bearer "+token {
				t.Errorf("%s sent Authorization %q, want the token of the settings", r.Path, r.Authorization)
			}
		}
	})
}

// TestPackagedLauncher checks that the npm launcher is transparent:
// arguments, stdin, stdout, stderr, exit codes and signals.
func TestPackagedLauncher(t *testing.T) {
	p := openPackaged(t)
	run := func(c *cli, stdin string, args ...string) result {
		t.Helper()
		cmd := exec.Command(p.launcher(), args...)
		cmd.Env = p.env(c)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			t.Fatalf("launcher %q: %v", args, err)
		}
		return result{args: args, code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	}
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")

	direct, err := exec.Command(p.bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if r := run(c, "", "version"); r.code != 0 || r.stdout != string(direct) || r.stderr != "" {
		t.Errorf("launcher version: %+v, want exit 0 and %q", r, direct)
	}
	if r := run(c, "", "frobnicate"); r.code != exitUsage || !strings.HasPrefix(r.stderr, "hubsnap: ") {
		t.Errorf("launcher frobnicate: %+v, want exit %d and one error line", r, exitUsage)
	}
	if r := run(c, string(shopDoc(t)), "snapshot", "import", "-"); r.code != 0 || !strings.Contains(r.stdout, "imported shop/dev rel_42") {
		t.Errorf("launcher snapshot import - (release on stdin): %+v", r)
	}
	if r := run(c, "", "snapshot", "use", "rel_0"); r.code != exitError {
		t.Errorf("launcher snapshot use rel_0: %+v, want exit %d", r, exitError)
	}

	// serve: SIGTERM to the launcher reaches hubsnap, which ends cleanly,
	// and so does the launcher; SIGKILL to hubsnap kills the launcher with
	// the same signal.
	serve := func() (*exec.Cmd, int) {
		t.Helper()
		cmd := exec.Command(p.launcher(), "serve")
		cmd.Env = p.env(c)
		stdin, err := cmd.StdinPipe() // held open: serve waits for requests
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close() })
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		deadline := time.Now().Add(startLimit)
		for {
			if kid := childOf(cmd.Process.Pid, "hubsnap"); kid != 0 {
				return cmd, kid
			}
			if time.Now().After(deadline) {
				t.Fatalf("the launcher started no hubsnap in %v; stderr: %s", startLimit, stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitExit := func(what string, cmd *exec.Cmd) *os.ProcessState {
		t.Helper()
		done := make(chan struct{})
		go func() {
			cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(signalLimit):
			t.Fatalf("%s: the launcher still runs after %v", what, signalLimit)
		}
		return cmd.ProcessState
	}

	cmd, kid := serve()
	time.Sleep(500 * time.Millisecond) // let serve set up its signal handling
	cmd.Process.Signal(syscall.SIGTERM)
	if ps := waitExit("SIGTERM", cmd); !ps.Exited() || ps.ExitCode() != 0 {
		t.Errorf("launcher serve after SIGTERM: %v, want exit 0 (hubsnap's)", ps)
	}
	if alive(kid) {
		t.Errorf("hubsnap (pid %d) outlived the launcher's SIGTERM", kid)
	}

	cmd, kid = serve()
	syscall.Kill(kid, syscall.SIGKILL)
	ps := waitExit("SIGKILL to hubsnap", cmd)
	if ws, ok := ps.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("launcher after its hubsnap was killed: %v, want killed by SIGKILL too", ps)
	}
}

// childOf returns the pid of a child of pid whose command is name, or 0.
func childOf(pid int, name string) int {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		kid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) > 1 && s[open+1:end] == name && f[1] == strconv.Itoa(pid) {
			return kid
		}
	}
	return 0
}

// alive reports whether pid runs (and is no zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}
