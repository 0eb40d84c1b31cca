package main

// Direct tests of run functions: Options built by hand, no cobra, no
// settings resolution. The rest of the package's tests run hubsnap whole.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// importedCache returns a cache folder holding rel_41 (dev) and rel_42
// (dev, current) of project shop, imported with runImport.
func importedCache(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "cache")
	for _, doc := range [][]byte{release(tb, "rel_41", 41), release(tb, "rel_42", 42)} {
		var out bytes.Buffer
		opts := &importOptions{Stdin: bytes.NewReader(doc), Stdout: &out, CacheDir: dir, File: "-"}
		if err := runImport(context.Background(), opts); err != nil {
			tb.Fatalf("runImport: %v", err)
		}
	}
	return dir
}

func TestRunList(t *testing.T) {
	t.Parallel()
	dir := importedCache(t)
	var out, errOut bytes.Buffer
	if err := runList(context.Background(), &listOptions{Stdout: &out, Stderr: &errOut, CacheDir: dir, Project: "shop", JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Releases []releaseJSON `json:"releases"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("runList --json: %v\n%s", err, out.String())
	}
	current := map[string]bool{}
	for _, r := range got.Releases {
		current[r.Release] = r.Current
	}
	if want := map[string]bool{"rel_41": false, "rel_42": true}; !equalMaps(current, want) {
		t.Errorf("releases (id -> current) = %v, want %v", current, want)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", errOut.String())
	}

	// A missing cache lists nothing, says so on stderr, and is not created.
	out.Reset()
	missing := filepath.Join(t.TempDir(), "none")
	if err := runList(context.Background(), &listOptions{Stdout: &out, Stderr: &errOut, CacheDir: missing}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "hubsnap snapshot sync") {
		t.Errorf("empty list: stdout %q, stderr %q", out.String(), errOut.String())
	}
	if exists(missing) {
		t.Errorf("runList created %s", missing)
	}
}

func TestRunUse(t *testing.T) {
	t.Parallel()
	dir := importedCache(t)
	use := func(env, id string) (string, error) {
		var out bytes.Buffer
		err := runUse(context.Background(), &useOptions{Stdout: &out, CacheDir: dir, Project: "shop", Environment: env, Release: id})
		return out.String(), err
	}

	out, err := use("dev", "rel_41")
	if err != nil {
		t.Fatal(err)
	}
	if want := "shop/dev: rel_41 (version 41) is now current\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}

	for _, tc := range []struct {
		env, id  string
		wantExit int
		words    []string
	}{
		{"dev", "../rel_41", exitUsage, []string{"release id"}},
		{"dev", "rel_9", exitError, []string{"rel_9", "hubsnap snapshot list"}},
		// A release of another environment: the cache's answer, not a usage error.
		{"prod", "rel_42", exitError, []string{"prod"}},
	} {
		_, err := use(tc.env, tc.id)
		if got := exitCode(err); got != tc.wantExit {
			t.Errorf("use %s in %s: exit %d (%v), want %d", tc.id, tc.env, got, err, tc.wantExit)
		}
		if err != nil {
			mentions(t, "use "+tc.id, err.Error(), tc.words...)
		}
	}
}

func TestRunTokenCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	opts := &tokenCreateOptions{Stdout: &out, Stderr: &errOut, ConfigDir: dir, Name: "ci", Scopes: []string{"table:read", "logic:read"}}
	if err := runTokenCreate(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSuffix(out.String(), "\n")
	if !strings.HasPrefix(secret, "hubsnap_") || strings.Contains(secret, "\n") {
		t.Errorf("stdout = %q, want the token alone on one line", out.String())
	}
	mentions(t, "stderr", errOut.String(), `"ci"`, "table:read,logic:read", "only this once")
	tokens, err := access.NewFile(dir).Read()
	if err != nil || len(tokens) != 1 || tokens[0].Name != "ci" {
		t.Errorf("token file after create: %+v, %v", tokens, err)
	}

	for _, tc := range []struct {
		name     string
		scopes   []string
		wantExit int
	}{
		{"../x", []string{"table:read"}, exitUsage},
		{"alice", nil, exitUsage}, // --scopes not given
		{"alice", []string{}, exitUsage},
		{"alice", []string{"table:write"}, exitUsage},
		{"ci", []string{"table:read"}, exitError}, // exists
	} {
		opts := &tokenCreateOptions{Stdout: &out, Stderr: &errOut, ConfigDir: dir, Name: tc.name, Scopes: tc.scopes}
		err := runTokenCreate(context.Background(), opts)
		if got := exitCode(err); got != tc.wantExit {
			t.Errorf("create %q %q: exit %d (%v), want %d", tc.name, tc.scopes, got, err, tc.wantExit)
		}
	}
}

func TestRunContextShow(t *testing.T) {
	t.Parallel()
	s := &settings{
		context:     "work",
		configDir:   value{"/cfg", "flag --config-dir"},
		cacheDir:    value{"/cache", "env " + envCacheDir},
		hub:         value{"https://hub.example", "context work"},
		environment: value{defaultEnvironment, "default"},
		tokenFile:   filepath.Join(t.TempDir(), "missing-token"),
		tokenSource: "context work token file",
	}
	var out bytes.Buffer
	if err := runContextShow(context.Background(), &contextShowOptions{Stdout: &out, Settings: s}); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.Lines(out.String()) {
		name, rest, _ := strings.Cut(strings.TrimSpace(line), "  ")
		rows[name] = strings.Join(strings.Fields(rest), " ")
	}
	for name, want := range map[string]string{
		"context":     "work",
		"hub":         "https://hub.example context work",
		"project":     "(not set) -",
		"environment": "dev default",
		"cache dir":   "/cache env " + envCacheDir,
		"config dir":  "/cfg flag --config-dir",
	} {
		if rows[name] != want {
			t.Errorf("row %q = %q, want %q", name, rows[name], want)
		}
	}
	if !strings.HasPrefix(rows["token"], "unreadable: ") || !strings.HasSuffix(rows["token"], "context work token file") {
		t.Errorf("token row = %q, want it unreadable, from the context's token file", rows["token"])
	}
}

func TestRunContextSetAndUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hub, project := "http://hub.example/", "shop"
	var out bytes.Buffer
	opts := &contextSetOptions{Stdout: &out, ConfigDir: dir, Name: "work", Hub: &hub, Project: &project}
	if err := runContextSet(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if want := "context \"work\" created (current)\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
	cfg, err := loadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *cfg.Contexts["work"], (contextConfig{Hub: "http://hub.example", Project: "shop"}); got != want {
		t.Errorf("context = %+v, want %+v", got, want)
	}

	// Only the flags given change; a bad one is a usage error.
	bad := "../prod"
	err = runContextSet(context.Background(), &contextSetOptions{Stdout: &out, ConfigDir: dir, Name: "work", Environment: &bad})
	if got := exitCode(err); got != exitUsage {
		t.Errorf("--environment ../prod: exit %d (%v), want %d", got, err, exitUsage)
	}
	err = runContextUse(context.Background(), &contextNameOptions{Stdout: &out, ConfigDir: dir, Name: "nope"})
	if got := exitCode(err); got != exitError {
		t.Errorf("use nope: exit %d (%v), want %d", got, err, exitError)
	}
}

// TestExitStatusesMapEveryCode checks that the exit table has a row for
// every error code, so a new code is given its status on purpose.
func TestExitStatusesMapEveryCode(t *testing.T) {
	t.Parallel()
	for _, code := range store.Codes {
		if _, ok := exitStatuses[code]; !ok {
			t.Errorf("exitStatuses has no row for %s", code)
		}
	}
	if got, want := len(exitStatuses), len(store.Codes); got != want {
		t.Errorf("exitStatuses has %d rows, want %d (one per code)", got, want)
	}
	for _, kind := range hub.Kinds {
		if _, ok := hubExitStatuses[kind]; !ok {
			t.Errorf("hubExitStatuses has no row for %s", kind)
		}
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	invalid := store.Errorf(store.InvalidArgument, "bad")
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("disk full"), exitError},
		{store.Errorf(store.NotFound, "no such release"), exitError},
		{store.Errorf(store.NoRelease, "nothing current"), exitError},
		{invalid, exitUsage},
		{fmt.Errorf("--hub: %w", invalid), exitUsage},
		{usageErrorf("no project"), exitUsage},
		{store.Errorf(store.WrongEnvironment, "release of prod"), exitError},
		{fmt.Errorf("use: %w", store.Errorf(store.WrongEnvironment, "release of prod")), exitError},
		{&failure{invalid}, exitError},
		{fmt.Errorf("--hub: %w", &hub.Error{Kind: hub.Invalid, Message: "hub URL is not valid"}), exitUsage},
		{fmt.Errorf("list releases: %w", &hub.Error{Kind: hub.NotFound, Message: "no such project (404)"}), exitError},
		{&failure{&hub.Error{Kind: hub.Invalid}}, exitError},
		{fmt.Errorf("context: %w", &failure{invalid}), exitError},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
