package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// setting is one row of `hubsnap context show`.
type setting struct {
	Value, Source string
}

var columnsRE = regexp.MustCompile(`\s{2,}`)

// show runs `hubsnap context show` with extra arguments and returns its
// rows by name ("hub", "cache dir", ...). The "context" row has no source.
func (c *cli) show(extra ...string) map[string]setting {
	c.tb.Helper()
	r := c.ok(append([]string{"context", "show"}, extra...)...)
	rows := map[string]setting{}
	for _, line := range r.lines() {
		f := columnsRE.Split(strings.TrimSpace(line), -1)
		switch len(f) {
		case 2:
			rows[f[0]] = setting{f[1], ""}
		case 3:
			rows[f[0]] = setting{f[1], f[2]}
		default:
			c.tb.Fatalf("context show: cannot parse line %q of:\n%s", line, r.stdout)
		}
	}
	return rows
}

// showRow returns one row of `hubsnap context show`.
func (c *cli) showRow(name string, extra ...string) setting {
	c.tb.Helper()
	rows := c.show(extra...)
	row, ok := rows[name]
	if !ok {
		c.tb.Fatalf("context show: no %q row in %v", name, rows)
	}
	return row
}

// contexts reads the contexts file of c's config folder.
func (c *cli) contexts() (raw []byte, cfg config) {
	c.tb.Helper()
	raw, err := os.ReadFile(filepath.Join(c.configDir(), "contexts.json"))
	if err != nil {
		c.tb.Fatal(err)
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		c.tb.Fatalf("contexts.json: %v\n%s", err, raw)
	}
	return raw, cfg
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// filesContaining lists the files under dir (relative) whose bytes contain s.
func filesContaining(tb testing.TB, dir, s string) []string {
	tb.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(s)) {
			rel, _ := filepath.Rel(dir, path)
			found = append(found, rel)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	return found
}

func TestSettingsDefaults(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_CACHE_DIR", "", "HUBSNAP_CONFIG_DIR", "")
	home := c.env["HOME"]
	got := c.show()
	want := map[string]setting{
		"context":     {"(none)", ""},
		"hub":         {"(not set)", "-"},
		"project":     {"(not set)", "-"},
		"environment": {"dev", "default"},
		"cache dir":   {filepath.Join(home, ".cache", "hubsnap"), "default"},
		"config dir":  {filepath.Join(home, ".config", "hubsnap"), "default"},
		"token":       {"(not set)", "-"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context show (-want +got):\n%s", diff)
	}
}

func TestSettingsFolders(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	xdg := filepath.Join(base, "xdg")
	envDir := filepath.Join(base, "from-env")
	flagDir := filepath.Join(base, "from-flag")
	for _, f := range []struct {
		row, flag, env, xdg, dotdir string
	}{
		{"cache dir", "--cache-dir", "HUBSNAP_CACHE_DIR", "XDG_CACHE_HOME", ".cache"},
		{"config dir", "--config-dir", "HUBSNAP_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"},
	} {
		for _, tc := range []struct {
			name string
			env  []string
			args []string
			want setting
		}{
			{"home", nil, nil, setting{filepath.Join(home, f.dotdir, "hubsnap"), "default"}},
			{"xdg", []string{f.xdg, xdg}, nil, setting{filepath.Join(xdg, "hubsnap"), "default"}},
			// The XDG spec says a relative path is invalid and to be ignored.
			{"relative xdg", []string{f.xdg, "relative/dir"}, nil, setting{filepath.Join(home, f.dotdir, "hubsnap"), "default"}},
			{"env", []string{f.xdg, xdg, f.env, envDir}, nil, setting{envDir, "env " + f.env}},
			{"flag", []string{f.xdg, xdg, f.env, envDir}, []string{f.flag, flagDir}, setting{flagDir, "flag " + f.flag}},
			{"flag=", []string{f.env, envDir}, []string{f.flag + "=" + flagDir}, setting{flagDir, "flag " + f.flag}},
		} {
			t.Run(f.row+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				c := &cli{tb: t, env: map[string]string{"HOME": home}}
				c = c.with(tc.env...)
				if got := c.showRow(f.row, tc.args...); got != tc.want {
					t.Errorf("%s = %+v, want %+v", f.row, got, tc.want)
				}
			})
		}
	}
}

func TestSettingsPrecedence(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("context", "set", "ctx1", "--hub", "http://ctx.example", "--project", "ctxproj", "--environment", "ctxenv")
	noContext := c.with("HUBSNAP_CONFIG_DIR", filepath.Join(t.TempDir(), "empty"))

	for _, s := range []struct {
		row, flag, env       string
		ctx, envVal, flagVal string
		unset                setting
	}{
		{"hub", "--hub", "HUBSNAP_HUB", "http://ctx.example", "http://env.example", "http://flag.example", setting{"(not set)", "-"}},
		{"project", "--project", "HUBSNAP_PROJECT", "ctxproj", "envproj", "flagproj", setting{"(not set)", "-"}},
		{"environment", "--environment", "HUBSNAP_ENVIRONMENT", "ctxenv", "envenv", "flagenv", setting{"dev", "default"}},
	} {
		fromCtx := setting{s.ctx, "context ctx1"}
		fromEnv := setting{s.envVal, "env " + s.env}
		fromFlag := setting{s.flagVal, "flag " + s.flag}
		for _, tc := range []struct {
			name string
			c    *cli
			args []string
			want setting
		}{
			{"context", c, nil, fromCtx},
			{"env over context", c.with(s.env, s.envVal), nil, fromEnv},
			{"flag over env and context", c.with(s.env, s.envVal), []string{s.flag, s.flagVal}, fromFlag},
			{"flag over context", c, []string{s.flag, s.flagVal}, fromFlag},
			{"default", noContext, nil, s.unset},
			{"env without context", noContext.with(s.env, s.envVal), nil, fromEnv},
			{"flag without context", noContext, []string{s.flag, s.flagVal}, fromFlag},
		} {
			t.Run(s.row+"/"+tc.name, func(t *testing.T) {
				if got := tc.c.on(t).showRow(s.row, tc.args...); got != tc.want {
					t.Errorf("%s = %+v, want %+v", s.row, got, tc.want)
				}
			})
		}
	}

	// A context without an environment leaves the default.
	c.ok("context", "set", "noenv", "--hub", "http://ctx.example", "--project", "p")
	c.ok("context", "use", "noenv")
	if got, want := c.showRow("environment"), (setting{"dev", "default"}); got != want {
		t.Errorf("environment with a context that names none = %+v, want %+v", got, want)
	}
}

// The config folder in effect decides which contexts there are.
func TestConfigFolderChoosesContext(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	xdg := filepath.Join(base, "xdg")
	envDir := filepath.Join(base, "env-config")
	flagDir := filepath.Join(base, "flag-config")
	c := &cli{tb: t, env: map[string]string{"HOME": home}}
	c.ok("context", "set", "homectx", "--hub", "http://home.example", "--project", "p")
	c.with("XDG_CONFIG_HOME", xdg).ok("context", "set", "xdgctx", "--hub", "http://xdg.example", "--project", "p")
	c.ok("--config-dir", envDir, "context", "set", "envctx", "--hub", "http://env.example", "--project", "p")
	c.ok("context", "set", "flagctx", "--hub", "http://flag.example", "--project", "p", "--config-dir", flagDir)
	if !exists(filepath.Join(home, ".config", "hubsnap", "contexts.json")) {
		t.Errorf("the default config folder holds no contexts.json")
	}

	for _, tc := range []struct {
		name string
		c    *cli
		args []string
		want string
	}{
		{"home", c, nil, "homectx"},
		{"xdg", c.with("XDG_CONFIG_HOME", xdg), nil, "xdgctx"},
		{"env", c.with("XDG_CONFIG_HOME", xdg, "HUBSNAP_CONFIG_DIR", envDir), nil, "envctx"},
		{"flag", c.with("XDG_CONFIG_HOME", xdg, "HUBSNAP_CONFIG_DIR", envDir), []string{"--config-dir", flagDir}, "flagctx"},
	} {
		rows := tc.c.show(tc.args...)
		if got := rows["context"].Value; got != tc.want {
			t.Errorf("%s: context = %q, want %q", tc.name, got, tc.want)
		}
		if got, want := rows["hub"].Source, "context "+tc.want; got != want {
			t.Errorf("%s: hub source = %q, want %q", tc.name, got, want)
		}
	}
}

func TestContextLifecycle(t *testing.T) {
	t.Parallel()
	c := newCLI(t)

	r := c.ok("context", "list")
	if r.stdout != "" {
		t.Errorf("context list with no contexts: stdout = %q, want nothing", r.stdout)
	}
	mentions(t, "context list with no contexts: stderr", r.stderr, "context set")

	// Creating needs --hub and --project.
	r = c.fails(exitUsage, "context", "set", "dev", "--project", "shop")
	mentions(t, "context set without --hub", r.msg(), "--hub")
	r = c.fails(exitUsage, "context", "set", "dev", "--hub", "http://hub.example")
	mentions(t, "context set without --project", r.msg(), "--project")
	c.fails(exitUsage, "context", "set", "dev")
	if exists(filepath.Join(c.configDir(), "contexts.json")) {
		t.Errorf("a failed context set wrote contexts.json")
	}

	// The first context becomes current; later ones do not.
	r = c.ok("context", "set", "dev", "--hub", "http://hub.example/", "--project", "shop")
	if got, want := r.stdout, "context \"dev\" created (current)\n"; got != want {
		t.Errorf("context set dev: stdout = %q, want %q", got, want)
	}
	r = c.ok("context", "set", "prod", "--hub", "https://hub.example:8443/api", "--project", "shop", "--environment", "prod")
	if got, want := r.stdout, "context \"prod\" created\n"; got != want {
		t.Errorf("context set prod: stdout = %q, want %q", got, want)
	}
	_, cfg := c.contexts()
	wantCfg := config{Current: "dev", Contexts: map[string]*contextConfig{
		"dev":  {Hub: "http://hub.example", Project: "shop"},
		"prod": {Hub: "https://hub.example:8443/api", Project: "shop", Environment: "prod"},
	}}
	if diff := cmp.Diff(wantCfg, cfg); diff != "" {
		t.Errorf("contexts.json (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(filepath.Join(c.configDir(), "contexts.json")); err != nil {
		t.Fatal(err)
	} else if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("contexts.json has mode %v, want no access for group and others", perm)
	}

	checkList := func(current string) {
		t.Helper()
		r := c.ok("context", "list")
		lines := r.lines()
		if len(lines) < 1 || !strings.Contains(lines[0], "NAME") {
			t.Fatalf("context list: want a header, got:\n%s", r.stdout)
		}
		seen := 0
		for _, line := range lines[1:] {
			f := strings.Fields(line)
			marked := f[0] == "*"
			if marked {
				f = f[1:]
			}
			if marked != (f[0] == current) {
				t.Errorf("context list: row %q: marked current = %v, want %v", line, marked, !marked)
			}
			seen++
		}
		if seen != len(c.mustContexts()) {
			t.Errorf("context list shows %d contexts, want %d:\n%s", seen, len(c.mustContexts()), r.stdout)
		}
	}
	checkList("dev")
	rows := c.show()
	if got, want := rows["context"].Value, "dev"; got != want {
		t.Errorf("context show: context = %q, want %q", got, want)
	}
	if got, want := rows["hub"], (setting{"http://hub.example", "context dev"}); got != want {
		t.Errorf("context show: hub = %+v, want %+v", got, want)
	}

	// Updating changes only the settings given.
	r = c.ok("context", "set", "dev", "--environment", "staging")
	if got, want := r.stdout, "context \"dev\" updated (current)\n"; got != want {
		t.Errorf("context set dev --environment: stdout = %q, want %q", got, want)
	}
	c.ok("context", "set", "dev", "--project", "blog")
	_, cfg = c.contexts()
	if got, want := *cfg.Contexts["dev"], (contextConfig{Hub: "http://hub.example", Project: "blog", Environment: "staging"}); got != want {
		t.Errorf("after updates, dev = %+v, want %+v", got, want)
	}
	if got, want := *cfg.Contexts["prod"], (contextConfig{Hub: "https://hub.example:8443/api", Project: "shop", Environment: "prod"}); got != want {
		t.Errorf("updating dev changed prod to %+v, want %+v", got, want)
	}
	if got, want := c.showRow("environment"), (setting{"staging", "context dev"}); got != want {
		t.Errorf("environment = %+v, want %+v", got, want)
	}

	// use
	r = c.ok("context", "use", "prod")
	mentions(t, "context use prod", r.stdout, "prod")
	checkList("prod")
	if got, want := c.showRow("environment"), (setting{"prod", "context prod"}); got != want {
		t.Errorf("after use prod, environment = %+v, want %+v", got, want)
	}
	r = c.fails(exitError, "context", "use", "nope")
	mentions(t, "context use nope", r.msg(), "nope")
	if _, cfg := c.contexts(); cfg.Current != "prod" {
		t.Errorf("a failed context use changed the current context to %q", cfg.Current)
	}

	// delete
	r = c.fails(exitError, "context", "delete", "nope")
	mentions(t, "context delete nope", r.msg(), "nope")
	c.ok("context", "delete", "prod")
	if got := c.showRow("context").Value; got != "(none)" {
		t.Errorf("after deleting the current context, context show says %q, want (none)", got)
	}
	_, cfg = c.contexts()
	if _, ok := cfg.Contexts["prod"]; ok || len(cfg.Contexts) != 1 {
		t.Errorf("after delete prod, contexts = %v", cfg.Contexts)
	}
	r = c.ok("context", "list")
	if strings.Contains(r.stdout, "*") {
		t.Errorf("context list marks a current context when there is none:\n%s", r.stdout)
	}
}

func (c *cli) mustContexts() map[string]*contextConfig {
	c.tb.Helper()
	_, cfg := c.contexts()
	return cfg.Contexts
}

func TestContextSetRejectsInvalid(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("context", "set", "good", "--hub", "http://hub.example", "--project", "shop")
	before, _ := c.contexts()
	hub := []string{"--hub", "http://hub.example"}
	proj := []string{"--project", "shop"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"traversal name", cat([]string{"context", "set", "../evil"}, hub, proj)},
		{"empty name", cat([]string{"context", "set", ""}, hub, proj)},
		{"slash name", cat([]string{"context", "set", "a/b"}, hub, proj)},
		{"dot name", cat([]string{"context", "set", ".hidden"}, hub, proj)},
		{"ftp hub", cat([]string{"context", "set", "x", "--hub", "ftp://hub.example"}, proj)},
		{"hub without scheme", cat([]string{"context", "set", "x", "--hub", "hub.example"}, proj)},
		{"hub without host", cat([]string{"context", "set", "x", "--hub", "http://"}, proj)},
		{"hub with query", cat([]string{"context", "set", "x", "--hub", "http://hub.example/?a=1"}, proj)},
		{"empty hub", cat([]string{"context", "set", "x", "--hub", ""}, proj)},
		{"traversal project", cat([]string{"context", "set", "x", "--project", "../shop"}, hub)},
		{"project with space", cat([]string{"context", "set", "x", "--project", "my shop"}, hub)},
		{"traversal environment", cat([]string{"context", "set", "x", "--environment", "../prod"}, hub, proj)},
		{"bad update", []string{"context", "set", "good", "--hub", "not a url"}},
		{"token flags together", cat([]string{"context", "set", "x", "--token-file", "/dev/null", "--token-stdin"}, hub, proj)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := c.on(t)
			// Invalid flag values and arguments are usage errors (exit 2).
			c.fails(exitUsage, tc.args...)
			after, _ := c.contexts()
			if !bytes.Equal(before, after) {
				t.Errorf("a rejected context set changed contexts.json:\n%s", after)
			}
		})
	}
}

func TestContextTokenStdin(t *testing.T) {
	t.Parallel()
	const tok, tok2 = "hubtok-stdin-5d1e0c9a77", "hubtok-stdin-second-3b81f"
	c := newCLI(t)
	c.secrets = []string{tok, tok2}
	r := c.okIn(tok+"\n", "context", "set", "prod", "--hub", "http://hub.example", "--project", "shop", "--token-stdin")
	mentions(t, "context set --token-stdin", r.stdout, "prod")

	path := filepath.Join(c.configDir(), "tokens", "prod")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the token file: %v", err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("token file mode = %v, want 0600", got)
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	} else if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("tokens folder mode = %v, want no access for group and others", perm)
	}
	if data, _ := os.ReadFile(path); strings.TrimSpace(string(data)) != tok {
		t.Errorf("token file holds %q, want the token", data)
	}
	if got, want := filesContaining(t, c.configDir(), tok), []string{filepath.Join("tokens", "prod")}; !cmp.Equal(got, want) {
		t.Errorf("files of the config folder holding the token = %q, want %q", got, want)
	}
	if raw, _ := c.contexts(); bytes.Contains(raw, []byte(tok)) {
		t.Errorf("contexts.json holds the token:\n%s", raw)
	}

	if got, want := c.showRow("token"), (setting{"set (hidden)", "context prod token file"}); got != want {
		t.Errorf("token = %+v, want %+v", got, want)
	}
	r = c.ok("context", "list")
	if !regexp.MustCompile(`(?m)^\* prod .*\bfile$`).MatchString(r.stdout) {
		t.Errorf("context list does not show that prod has a token file:\n%s", r.stdout)
	}

	// A new token replaces the old one.
	c.okIn(" "+tok2+" \n", "context", "set", "prod", "--token-stdin")
	if data, _ := os.ReadFile(path); strings.TrimSpace(string(data)) != tok2 {
		t.Errorf("after a second --token-stdin the token file holds %q, want the new token", data)
	}
	if got := filesContaining(t, c.configDir(), tok); len(got) != 0 {
		t.Errorf("the replaced token is still in %q", got)
	}

	// Standard input must hold one token on one line.
	for _, in := range []string{"", "\n", "   \n", tok + "\n" + tok + "\n"} {
		c.failsIn(exitUsage, in, "context", "set", "prod", "--token-stdin")
	}
	if data, _ := os.ReadFile(path); strings.TrimSpace(string(data)) != tok2 {
		t.Errorf("a rejected --token-stdin changed the token file to %q", data)
	}

	// --token-file "" forgets the token.
	c.ok("context", "set", "prod", "--token-file", "")
	if got, want := c.showRow("token"), (setting{"(not set)", "-"}); got != want {
		t.Errorf("after --token-file \"\", token = %+v, want %+v", got, want)
	}

	// Deleting the context deletes the token hubsnap kept for it.
	c.okIn(tok+"\n", "context", "set", "prod", "--token-stdin")
	c.ok("context", "delete", "prod")
	if exists(path) {
		t.Errorf("context delete left the token file %s", path)
	}
}

func TestContextTokenFile(t *testing.T) {
	t.Parallel()
	const tok = "hubtok-file-c0ffee4242"
	c := newCLI(t)
	c.secrets = []string{tok}
	tokenFile := filepath.Join(t.TempDir(), "hub-token")
	if err := os.WriteFile(tokenFile, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("context", "set", "ci", "--hub", "http://hub.example", "--project", "shop", "--token-file", tokenFile)
	raw, cfg := c.contexts()
	if bytes.Contains(raw, []byte(tok)) {
		t.Errorf("contexts.json holds the token:\n%s", raw)
	}
	if got := cfg.Contexts["ci"].TokenFile; got != tokenFile {
		t.Errorf("tokenFile = %q, want %q", got, tokenFile)
	}
	if got, want := c.showRow("token"), (setting{"set (hidden)", "context ci token file"}); got != want {
		t.Errorf("token = %+v, want %+v", got, want)
	}

	missing := filepath.Join(t.TempDir(), "no-such-token")
	r := c.fails(exitUsage, "context", "set", "ci", "--token-file", missing)
	mentions(t, "context set --token-file MISSING", r.msg(), missing)
	if _, cfg := c.contexts(); cfg.Contexts["ci"].TokenFile != tokenFile {
		t.Errorf("a rejected --token-file changed the context")
	}

	// The user's own token file is theirs: deleting the context keeps it.
	c.ok("context", "delete", "ci")
	if !exists(tokenFile) {
		t.Errorf("context delete removed the user's token file")
	}
}

func TestTokenEnvBeatsContextTokenFile(t *testing.T) {
	t.Parallel()
	const ctxTok, envTok = "hubtok-ctx-7f3a9c0d", "hubtok-env-19be42aa"
	c := newCLI(t)
	c.secrets = []string{ctxTok, envTok}
	c.okIn(ctxTok, "context", "set", "prod", "--hub", "http://hub.example", "--project", "shop", "--token-stdin")
	if got, want := c.showRow("token"), (setting{"set (hidden)", "context prod token file"}); got != want {
		t.Errorf("token = %+v, want %+v", got, want)
	}
	if got, want := c.with("HUBSNAP_TOKEN", envTok).showRow("token"), (setting{"set (hidden)", "env HUBSNAP_TOKEN"}); got != want {
		t.Errorf("with HUBSNAP_TOKEN, token = %+v, want %+v", got, want)
	}
}

// A context's token file is needed only to talk to the Hub. When it is
// gone, offline commands still work and the context can be repaired,
// switched away from or deleted.
func TestMissingTokenFileBlocksOnlyTheHub(t *testing.T) {
	t.Parallel()
	const tok = "hubtok-gone-0a9b8c7d"
	c := newCLI(t)
	c.secrets = []string{tok}
	tokenFile := filepath.Join(t.TempDir(), "hub-token")
	if err := os.WriteFile(tokenFile, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("context", "set", "ci", "--hub", "http://127.0.0.1:1", "--project", "shop", "--token-file", tokenFile)
	c.ok("context", "set", "other", "--hub", "http://127.0.0.1:1", "--project", "shop")
	c.ok("snapshot", "import", shopPath)
	if err := os.Remove(tokenFile); err != nil {
		t.Fatal(err)
	}

	r := c.fails(exitError, "snapshot", "sync")
	mentions(t, "sync with the token file gone", r.msg(), "token")

	for _, step := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"snapshot", "list"}},
		{"", []string{"snapshot", "import", shopPath}},
		{"", []string{"snapshot", "use", "rel_42"}},
		{"", []string{"context", "list"}},
		{"", []string{"context", "use", "other"}},
		{"", []string{"context", "use", "ci"}},
		{tok + "\n", []string{"context", "set", "ci", "--token-stdin"}},
		{"", []string{"context", "delete", "ci"}},
	} {
		if r := c.runIn(step.stdin, step.args...); r.code != exitOK {
			t.Errorf("hubsnap %q with the context's token file gone: exit %d (%s), want 0",
				step.args, r.code, strings.TrimSpace(r.stderr))
		}
	}
}
