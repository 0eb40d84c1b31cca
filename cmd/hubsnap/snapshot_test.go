package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/hubtest"
)

// shopPath is the realistic snapshot: project shop, environment dev,
// release rel_42 (version 42), 6 tables, 4 logics, planted secrets.
var shopPath = filepath.Join("..", "..", "testdata", "snapshots", "shop.json")

// planted is in every secret of shop.json; it must never leave hubsnap.
const planted = "PLANTED"

func shopDoc(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile(shopPath)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// edit decodes a snapshot document, lets f change it and encodes it again.
func edit(tb testing.TB, doc []byte, f func(d map[string]any)) []byte {
	tb.Helper()
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		tb.Fatal(err)
	}
	f(d)
	out, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// release returns shop.json as release id with version.
func release(tb testing.TB, id string, version int) []byte {
	tb.Helper()
	return edit(tb, shopDoc(tb), func(d map[string]any) {
		r := d["release"].(map[string]any)
		r["id"], r["version"] = id, version
	})
}

// newHub starts a Hub serving docs as project shop.
func newHub(tb testing.TB, docs ...[]byte) *hubtest.Hub {
	tb.Helper()
	h := hubtest.New()
	tb.Cleanup(h.Close)
	for _, d := range docs {
		h.Add("shop", d)
	}
	return h
}

// hubCLI is a cli whose environment names h and project shop.
func hubCLI(tb testing.TB, h *hubtest.Hub) *cli {
	tb.Helper()
	c := newCLI(tb).with("HUBSNAP_HUB", h.URL(), "HUBSNAP_PROJECT", "shop")
	c.secrets = []string{planted, "sk_live"}
	return c
}

// noSecretsCached fails when a planted secret or one of tokens is in any
// file of the cache.
func noSecretsCached(tb testing.TB, c *cli, tokens ...string) {
	tb.Helper()
	for _, s := range append([]string{planted, "sk_live"}, tokens...) {
		if got := filesContaining(tb, c.cacheDir(), s); len(got) != 0 {
			tb.Errorf("cache files %q hold the secret %q", got, s)
		}
	}
}

// current returns the id in the .current file of shop/env.
func current(tb testing.TB, c *cli, env string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(c.cacheDir(), "releases", "shop", env+".current"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// syncJSON is the --json output of sync and import.
type syncJSON struct {
	Project     *string `json:"project"`
	Environment *string `json:"environment"`
	Release     *string `json:"release"`
	Version     *int64  `json:"version"`
	Tables      *int    `json:"tables"`
	Logics      *int    `json:"logics"`
	Unchanged   *bool   `json:"unchanged"`
	Current     *bool   `json:"current"`
}

func decodeOne(tb testing.TB, out string, v any) {
	tb.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil {
		tb.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		tb.Fatalf("stdout holds more than one JSON value:\n%s", out)
	}
}

func parseSyncJSON(tb testing.TB, out string) syncJSON {
	tb.Helper()
	var got syncJSON
	decodeOne(tb, out, &got)
	if got.Project == nil || got.Environment == nil || got.Release == nil || got.Version == nil ||
		got.Tables == nil || got.Logics == nil || got.Unchanged == nil || got.Current == nil {
		tb.Fatalf("--json output misses a field:\n%s", out)
	}
	return got
}

// checkSummary checks the one summary line of a sync or import.
func checkSummary(tb testing.TB, r result, id string, version int, unchanged bool) {
	tb.Helper()
	lines := r.lines()
	if len(lines) != 1 {
		tb.Fatalf("hubsnap %q: stdout = %q, want one summary line", r.args, r.stdout)
	}
	line := lines[0]
	mentions(tb, "summary", line, id, "version "+strconv.Itoa(version), "6 tables, 4 logics")
	if got := strings.HasSuffix(line, ", unchanged"); got != unchanged {
		tb.Errorf("summary %q: ends in \", unchanged\" = %v, want %v", line, got, unchanged)
	}
	if r.stderr != "" {
		tb.Errorf("hubsnap %q: stderr = %q, want nothing", r.args, r.stderr)
	}
}

func TestSync(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	c := hubCLI(t, h)

	r := c.ok("snapshot", "sync")
	checkSummary(t, r, "rel_42", 42, false)
	if got := current(t, c, "dev"); got != "rel_42\n" {
		t.Errorf("dev.current = %q, want \"rel_42\\n\"", got)
	}
	if !exists(filepath.Join(c.cacheDir(), "releases", "shop", "rel_42.json")) {
		t.Errorf("no release file after sync")
	}
	noSecretsCached(t, c)

	r = c.ok("snapshot", "sync")
	checkSummary(t, r, "rel_42", 42, true)
	if got := h.Downloads(); got != 1 {
		t.Errorf("the hub sent %d snapshots for two syncs of one release, want 1", got)
	}
	for _, req := range h.Requests() {
		if req.Authorization != "" {
			t.Errorf("without a token, %s carried Authorization %q", req.Path, req.Authorization)
		}
	}
}

func TestSyncJSON(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	c := hubCLI(t, h)
	for i, wantUnchanged := range []bool{false, true} {
		r := c.ok("snapshot", "sync", "--json")
		got := parseSyncJSON(t, r.stdout)
		if *got.Project != "shop" || *got.Environment != "dev" || *got.Release != "rel_42" || *got.Version != 42 ||
			*got.Tables != 6 || *got.Logics != 4 || !*got.Current || *got.Unchanged != wantUnchanged {
			t.Errorf("sync %d --json = %s", i+1, r.stdout)
		}
		if r.stderr != "" {
			t.Errorf("sync --json: stderr = %q, want nothing", r.stderr)
		}
	}
}

func TestSyncRelease(t *testing.T) {
	t.Parallel()
	// Listed newest first: the pick is by version, not by order.
	h := newHub(t, shopDoc(t), release(t, "rel_41", 41))
	c := hubCLI(t, h)
	checkSummary(t, c.ok("snapshot", "sync", "--release", "rel_41"), "rel_41", 41, false)
	if got := current(t, c, "dev"); got != "rel_41\n" {
		t.Errorf("after sync --release rel_41, dev.current = %q", got)
	}
	checkSummary(t, c.ok("snapshot", "sync"), "rel_42", 42, false)
	checkSummary(t, c.ok("snapshot", "sync", "--release", "rel_41"), "rel_41", 41, true)
	if got := h.Downloads(); got != 2 {
		t.Errorf("the hub sent %d snapshots, want 2", got)
	}
	r := c.fails(exitError, "snapshot", "sync", "--release", "rel_99")
	mentions(t, "sync --release rel_99", r.msg(), "rel_99")
	if got := current(t, c, "dev"); got != "rel_41\n" {
		t.Errorf("a failed sync changed dev.current to %q", got)
	}
}

func TestSyncSendsToken(t *testing.T) {
	t.Parallel()
	const tok = "hubtok-bearer-6e5d4c3b2a"
	h := newHub(t, shopDoc(t))
	h.Token = tok
	c := hubCLI(t, h).with("HUBSNAP_TOKEN", tok)
	c.secrets = append(c.secrets, tok)
	checkSummary(t, c.ok("snapshot", "sync"), "rel_42", 42, false)
	reqs := h.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the hub saw %d requests, want a listing and a download", len(reqs))
	}
	for _, req := range reqs {
		if got, want := req.Authorization, "Bearer "+tok; got != want {
			t.Errorf("%s: Authorization = %q, want %q", req.Path, got, want)
		}
	}
	noSecretsCached(t, c, tok)
}

func TestSyncBadToken(t *testing.T) {
	t.Parallel()
	const right, wrong = "hubtok-right-1111aaaa", "hubtok-wrong-2222bbbb"
	h := newHub(t, shopDoc(t))
	h.Token = right
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"wrong token", []string{"HUBSNAP_TOKEN", wrong}},
		{"no token", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := hubCLI(t, h).with(tc.env...)
			c.secrets = append(c.secrets, right, wrong)
			r := c.fails(exitError, "snapshot", "sync")
			mentions(t, "sync with "+tc.name, strings.ToLower(r.msg()), "token")
			if exists(c.cacheDir()) {
				t.Errorf("a failed sync created the cache folder")
			}
		})
	}
	if got := h.Downloads(); got != 0 {
		t.Errorf("the hub sent %d snapshots to bad tokens", got)
	}
}

// The context supplies the hub, project and token; HUBSNAP_TOKEN beats the
// context's token file.
func TestSyncFromContext(t *testing.T) {
	t.Parallel()
	const ctxTok, envTok = "hubtok-ctx-a1b2c3d4e5", "hubtok-env-f6e7d8c9b0"
	h := newHub(t, shopDoc(t))
	h.Token = ctxTok
	c := newCLI(t)
	c.secrets = []string{planted, ctxTok, envTok}
	c.okIn(ctxTok+"\n", "context", "set", "shop-dev", "--hub", h.URL(), "--project", "shop", "--token-stdin")
	checkSummary(t, c.ok("snapshot", "sync"), "rel_42", 42, false)
	for _, req := range h.Requests() {
		if got, want := req.Authorization, "Bearer "+ctxTok; got != want {
			t.Errorf("%s: Authorization = %q, want %q", req.Path, got, want)
		}
	}

	h.Token = envTok
	n := len(h.Requests())
	checkSummary(t, c.with("HUBSNAP_TOKEN", envTok).ok("snapshot", "sync"), "rel_42", 42, true)
	for _, req := range h.Requests()[n:] {
		if got, want := req.Authorization, "Bearer "+envTok; got != want {
			t.Errorf("with HUBSNAP_TOKEN, %s: Authorization = %q, want %q", req.Path, got, want)
		}
	}
	noSecretsCached(t, c, ctxTok, envTok)
}

func TestSyncNeedsHubAndProject(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	c := hubCLI(t, h)
	r := c.with("HUBSNAP_PROJECT", "").fails(exitUsage, "snapshot", "sync")
	mentions(t, "sync without a project", r.msg(), "--project", "HUBSNAP_PROJECT", "context")
	r = c.with("HUBSNAP_HUB", "").fails(exitUsage, "snapshot", "sync")
	mentions(t, "sync without a hub", r.msg(), "--hub", "HUBSNAP_HUB", "context")
	r = c.with("HUBSNAP_HUB", "", "HUBSNAP_PROJECT", "").fails(exitUsage, "snapshot", "sync")
	if !strings.Contains(r.msg(), "HUBSNAP_PROJECT") && !strings.Contains(r.msg(), "HUBSNAP_HUB") {
		t.Errorf("sync without hub and project: %q names neither", r.msg())
	}
	if got := len(h.Requests()); got != 0 {
		t.Errorf("the hub saw %d requests, want none", got)
	}
	if exists(c.cacheDir()) {
		t.Errorf("a failed sync created the cache folder")
	}
}

// Invalid values of flags are usage errors (exit 2), like --release
// ../../x, and are caught before anything is asked of the Hub.
func TestSyncRejectsBadNames(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	for _, args := range [][]string{
		{"--release", "../../x"},
		{"--release", "a/b"},
		{"--release", ".hidden"},
		{"--project", "../shop"},
		{"--project", "sh op"},
		{"--environment", "../dev"},
		{"--hub", "ftp://hub.example"},
		{"--hub", "hub.example"},
	} {
		t.Run(strings.Join(args, "="), func(t *testing.T) {
			c := hubCLI(t, h)
			c.fails(exitUsage, append([]string{"snapshot", "sync"}, args...)...)
			if exists(c.cacheDir()) {
				t.Errorf("a rejected sync created the cache folder")
			}
		})
	}
	if got := len(h.Requests()); got != 0 {
		t.Errorf("the hub saw %d requests, want none", got)
	}
}

// On any failure the cache is exactly as before and the current release
// stays current.
func TestSyncFailureKeepsCache(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	c := hubCLI(t, h)
	c.ok("snapshot", "sync")
	before := c.ok("snapshot", "list", "--json").stdout

	// The Hub lists rel_43 with a digest its body does not have.
	body := release(t, "rel_43", 43)
	h.AddListed("shop", hubtest.Release{ID: "rel_43", Version: 43, Environment: "dev",
		CreatedAt: "2026-11-02T10:00:00Z", Digest: hubtest.Digest([]byte("something else"))}, body)
	r := c.fails(exitError, "snapshot", "sync")
	mentions(t, "sync of a release with a wrong digest", r.msg(), "rel_43")

	// A hub that answers 404 for the project.
	r = c.fails(exitError, "snapshot", "sync", "--project", "nope")
	mentions(t, "sync of an unknown project", r.msg(), "nope")

	if after := c.ok("snapshot", "list", "--json").stdout; after != before {
		t.Errorf("failed syncs changed the cache:\nbefore %s\nafter %s", before, after)
	}
	if got := current(t, c, "dev"); got != "rel_42\n" {
		t.Errorf("dev.current = %q, want rel_42", got)
	}
	if exists(filepath.Join(c.cacheDir(), "releases", "shop", "rel_43.json")) {
		t.Errorf("a release with a wrong digest was written")
	}
}

// A Hub that is slow to list times out cleanly with --timeout.
func TestSyncTimeout(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h.Fault = func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	}
	c := hubCLI(t, h)
	c.fails(exitError, "snapshot", "sync", "--timeout", "200ms")
	if exists(c.cacheDir()) {
		t.Errorf("a timed out sync created the cache folder")
	}
}

// listRows parses `snapshot list`: the release id of each row and whether
// it is marked current.
func listRows(tb testing.TB, r result) map[string]bool {
	tb.Helper()
	lines := r.lines()
	if len(lines) < 1 || !strings.Contains(lines[0], "RELEASE") {
		tb.Fatalf("snapshot list: want a header, got:\n%s", r.stdout)
	}
	rows := map[string]bool{}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		marked := f[0] == "*"
		if marked {
			f = f[1:]
		}
		if len(f) < 3 {
			tb.Fatalf("snapshot list: cannot parse %q", line)
		}
		rows[f[0]+"/"+f[1]+"/"+f[2]] = marked
	}
	return rows
}

type listJSON struct {
	Releases []struct {
		Project     string `json:"project"`
		Environment string `json:"environment"`
		Release     string `json:"release"`
		Version     int64  `json:"version"`
		Tables      int    `json:"tables"`
		Logics      int    `json:"logics"`
		Current     bool   `json:"current"`
	} `json:"releases"`
}

// currentByJSON returns release id -> current from `snapshot list --json`.
func currentByJSON(tb testing.TB, c *cli, extra ...string) map[string]bool {
	tb.Helper()
	var l listJSON
	decodeOne(tb, c.ok(append([]string{"snapshot", "list", "--json"}, extra...)...).stdout, &l)
	got := map[string]bool{}
	for _, r := range l.Releases {
		got[r.Project+"/"+r.Environment+"/"+r.Release] = r.Current
		if r.Project == "shop" && (r.Tables != 6 || r.Logics != 4) {
			tb.Errorf("list --json: %s has %d tables, %d logics; want 6, 4", r.Release, r.Tables, r.Logics)
		}
	}
	return got
}

func TestSnapshotListAndUse(t *testing.T) {
	t.Parallel()
	h := newHub(t, release(t, "rel_41", 41), shopDoc(t))
	c := hubCLI(t, h)

	// An empty cache: a hint on stderr, nothing on stdout, nothing created.
	r := c.ok("snapshot", "list")
	if r.stdout != "" {
		t.Errorf("list of an empty cache: stdout = %q, want nothing", r.stdout)
	}
	mentions(t, "list of an empty cache: stderr", r.stderr, "snapshot sync")
	var empty listJSON
	decodeOne(t, c.ok("snapshot", "list", "--json").stdout, &empty)
	if empty.Releases == nil || len(empty.Releases) != 0 {
		t.Errorf("list --json of an empty cache: releases = %v, want []", empty.Releases)
	}
	r = c.fails(exitError, "snapshot", "use", "rel_41")
	mentions(t, "use on an empty cache", r.msg(), "rel_41")
	if exists(c.cacheDir()) {
		t.Errorf("list or use created the cache folder")
	}

	c.ok("snapshot", "sync", "--release", "rel_41")
	c.ok("snapshot", "sync")
	want := map[string]bool{"shop/dev/rel_41": false, "shop/dev/rel_42": true}
	if got := listRows(t, c.ok("snapshot", "list")); !equalMaps(got, want) {
		t.Errorf("list = %v, want %v", got, want)
	}
	if got := currentByJSON(t, c); !equalMaps(got, want) {
		t.Errorf("list --json = %v, want %v", got, want)
	}

	// Rollback, offline: the hub is not asked.
	n := len(h.Requests())
	r = c.ok("snapshot", "use", "rel_41")
	if lines := r.lines(); len(lines) != 1 || !strings.Contains(lines[0], "rel_41") {
		t.Errorf("use rel_41: stdout = %q, want one line naming rel_41", r.stdout)
	}
	if got := len(h.Requests()); got != n {
		t.Errorf("snapshot use asked the hub")
	}
	want = map[string]bool{"shop/dev/rel_41": true, "shop/dev/rel_42": false}
	if got := listRows(t, c.ok("snapshot", "list")); !equalMaps(got, want) {
		t.Errorf("after use rel_41, list = %v, want %v", got, want)
	}
	if got := currentByJSON(t, c); !equalMaps(got, want) {
		t.Errorf("after use rel_41, list --json = %v, want %v", got, want)
	}
	if got := current(t, c, "dev"); got != "rel_41\n" {
		t.Errorf("after use rel_41, dev.current = %q", got)
	}

	// Not cached, wrong environment, invalid id.
	r = c.fails(exitError, "snapshot", "use", "rel_9")
	mentions(t, "use rel_9", r.msg(), "rel_9")
	r = c.fails(exitError, "snapshot", "use", "rel_42", "--environment", "prod")
	mentions(t, "use rel_42 --environment prod", r.msg(), "prod")
	c.fails(exitUsage, "snapshot", "use", "../rel_42")
	c.with("HUBSNAP_PROJECT", "").fails(exitUsage, "snapshot", "use", "rel_42")
	if got := current(t, c, "dev"); got != "rel_41\n" {
		t.Errorf("failed uses changed dev.current to %q", got)
	}

	// Syncing again makes the newest current without downloading it again.
	checkSummary(t, c.ok("snapshot", "sync"), "rel_42", 42, true)
	if got := current(t, c, "dev"); got != "rel_42\n" {
		t.Errorf("after sync, dev.current = %q, want rel_42", got)
	}
	if got := h.Downloads(); got != 2 {
		t.Errorf("the hub sent %d snapshots, want 2", got)
	}
}

func equalMaps(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// list shows the releases of the project in effect, or of all projects.
func TestSnapshotListByProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.secrets = []string{planted}
	blog := edit(t, shopDoc(t), func(d map[string]any) { d["release"].(map[string]any)["project"] = "blog" })
	c.ok("snapshot", "import", shopPath)
	c.okIn(string(blog), "snapshot", "import", "-")
	all := map[string]bool{"shop/dev/rel_42": true, "blog/dev/rel_42": true}
	if got := currentByJSON(t, c); !equalMaps(got, all) {
		t.Errorf("list --json without a project = %v, want %v", got, all)
	}
	if got := listRows(t, c.ok("snapshot", "list")); !equalMaps(got, all) {
		t.Errorf("list without a project = %v, want %v", got, all)
	}
	shop := map[string]bool{"shop/dev/rel_42": true}
	if got := currentByJSON(t, c, "--project", "shop"); !equalMaps(got, shop) {
		t.Errorf("list --json --project shop = %v, want %v", got, shop)
	}
}

func TestSnapshotImport(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.secrets = []string{planted, "sk_live"}

	r := c.ok("snapshot", "import", shopPath)
	checkSummary(t, r, "rel_42", 42, false)
	checkSummary(t, c.ok("snapshot", "import", shopPath), "rel_42", 42, true)
	noSecretsCached(t, c)

	// From standard input.
	r = c.okIn(string(release(t, "rel_41", 41)), "snapshot", "import", "-")
	checkSummary(t, r, "rel_41", 41, false)
	if got := current(t, c, "dev"); got != "rel_41\n" {
		t.Errorf("after import - of rel_41, dev.current = %q", got)
	}
	got := parseSyncJSON(t, c.ok("snapshot", "import", "--json", shopPath).stdout)
	if *got.Release != "rel_42" || !*got.Unchanged || !*got.Current {
		t.Errorf("import --json = %+v", got)
	}
	before := c.ok("snapshot", "list", "--json").stdout

	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dup := edit(t, shopDoc(t), func(d map[string]any) {
		cols := d["tables"].([]any)[0].(map[string]any)["columns"].([]any)
		cols[1].(map[string]any)["name"] = "id"
	})
	dupPath := write("dup.json", dup)
	r = c.fails(exitError, "snapshot", "import", dupPath)
	mentions(t, "import of a duplicate column", r.msg(), dupPath, "tables[0].columns[1].name", "duplicate")

	r = c.failsIn(exitError, string(dup), "snapshot", "import", "-")
	mentions(t, "import - of a duplicate column", r.msg(), "tables[0].columns[1].name", "duplicate")

	v2 := write("v2.json", edit(t, shopDoc(t), func(d map[string]any) { d["formatVersion"] = 2 }))
	r = c.fails(exitError, "snapshot", "import", v2)
	mentions(t, "import of formatVersion 2", r.msg(), v2, "formatVersion")

	badLogic := write("logic.json", edit(t, shopDoc(t), func(d map[string]any) {
		d["logics"].([]any)[1].(map[string]any)["name"] = "../etc/passwd"
	}))
	r = c.fails(exitError, "snapshot", "import", badLogic)
	mentions(t, "import of a bad logic name", r.msg(), badLogic, "logics[1].name")

	notJSON := write("not.json", []byte("hello, world\n"))
	r = c.fails(exitError, "snapshot", "import", notJSON)
	mentions(t, "import of a non-JSON file", r.msg(), notJSON)

	truncated := write("trunc.json", shopDoc(t)[:200])
	r = c.fails(exitError, "snapshot", "import", truncated)
	mentions(t, "import of a truncated file", r.msg(), truncated)

	missing := filepath.Join(dir, "missing.json")
	r = c.fails(exitError, "snapshot", "import", missing)
	mentions(t, "import of a missing file", r.msg(), missing)

	r = c.fails(exitError, "snapshot", "import", dir)
	mentions(t, "import of a folder", r.msg(), dir)

	if after := c.ok("snapshot", "list", "--json").stdout; after != before {
		t.Errorf("failed imports changed the cache:\nbefore %s\nafter %s", before, after)
	}
	if got := filesContaining(t, c.cacheDir(), "../etc/passwd"); len(got) != 0 {
		t.Errorf("a rejected snapshot reached the cache: %q", got)
	}
}

// Nothing but the summary goes to stdout, even with --verbose: logs are for
// stderr.
func TestVerboseLogsToStderrOnly(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	c := hubCLI(t, h)
	r := c.ok("snapshot", "sync", "--verbose", "--json")
	parseSyncJSON(t, r.stdout)
	r = c.ok("-v", "snapshot", "sync")
	if lines := r.lines(); len(lines) != 1 || !regexp.MustCompile(`rel_42.*unchanged`).MatchString(lines[0]) {
		t.Errorf("sync -v: stdout = %q, want the summary only", r.stdout)
	}
	if bytes.Contains([]byte(r.stderr), []byte("Bearer")) {
		t.Errorf("verbose logs show an Authorization header:\n%s", r.stderr)
	}
}

// The environment in effect is what the Hub is asked for; a Hub URL with a
// trailing slash works.
func TestSyncEnvironment(t *testing.T) {
	t.Parallel()
	h := newHub(t, shopDoc(t))
	c := hubCLI(t, h).with("HUBSNAP_HUB", h.URL()+"/")
	r := c.fails(exitError, "snapshot", "sync", "--environment", "prod")
	mentions(t, "sync of an environment with no releases", r.msg(), "prod")
	reqs := h.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/projects/shop/releases?environment=prod" {
		t.Errorf("requests = %+v, want one listing of environment prod", reqs)
	}
	checkSummary(t, c.with("HUBSNAP_ENVIRONMENT", "dev").ok("snapshot", "sync"), "rel_42", 42, false)
}

// A password in the Hub URL is a credential like the token: no command
// shows it.
func TestHubURLPasswordNotShown(t *testing.T) {
	t.Parallel()
	const pass = "hunter2-url-password"
	h := newHub(t, shopDoc(t))
	hub := strings.Replace(h.URL(), "http://", "http://user:"+pass+"@", 1)
	c := newCLI(t)
	c.secrets = []string{pass}
	// Credentials in a Hub URL are refused (the token has its own way in),
	// and the refusal does not repeat them.
	c.fails(exitUsage, "context", "set", "dev", "--hub", hub, "--project", "shop")
	c.fails(exitUsage, "snapshot", "sync", "--hub", hub, "--project", "shop")
	c.ok("context", "set", "dev", "--hub", h.URL(), "--project", "shop")
	c.ok("snapshot", "sync")
}
