package main

// Issue 23, item 3: a cache its reader cannot write — another user's
// cache shared with a team, a cache baked into an image, a read-only
// mount — is read, by the real binary, as that reader: snapshot list,
// snapshot diff and serve answer; writes fail saying why; what cannot be
// done is said.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"modernc.org/sqlite"

	"github.com/hubsnap/hubsnap/store"
)

// nobody is the user a root test runs the reader as.
const nobody = "65534"

// reader runs hubsnap as someone who may read the cache of owner but not
// write it: as root, the user nobody (setpriv), the cache made readable by
// all; otherwise this user, the cache made read-only (chmod a-w).
type reader struct {
	owner  *cli     // the cache's owner: runs in process, can write
	base   string   // a folder the reader may enter, holding the cache
	bin    string   // the binary, where the reader may run it
	prefix []string // what runs the binary as the reader
	asRoot bool
}

func newReader(t *testing.T) *reader {
	t.Helper()
	base, err := os.MkdirTemp("", "hubsnap-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		chmodTree(base, 0o755, 0o644) // a-w files would not go
		os.RemoveAll(base)
	})
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &reader{base: base, bin: hubsnapBin(t), asRoot: os.Geteuid() == 0}
	if r.asRoot {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("read-only caches: SKIPPED, running as root without setpriv to run hubsnap as another user")
		}
		// The reader must be able to run the binary.
		r.bin = filepath.Join(base, "hubsnap")
		copyFile(t, hubsnapBin(t), r.bin, 0o755)
		r.prefix = []string{setpriv, "--reuid=" + nobody, "--regid=" + nobody, "--clear-groups", "--"}
	}
	r.owner = &cli{tb: t, env: map[string]string{
		"HOME":                filepath.Join(base, "home"),
		"HUBSNAP_CACHE_DIR":   filepath.Join(base, "cache"),
		"HUBSNAP_CONFIG_DIR":  filepath.Join(base, "config"),
		"HUBSNAP_PROJECT":     "shop",
		"HUBSNAP_ENVIRONMENT": "dev",
	}}
	return r
}

func copyFile(tb testing.TB, src, dst string, mode os.FileMode) {
	tb.Helper()
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// chmodTree gives every folder under dir mode dirs and every file files.
func chmodTree(dir string, dirs, files os.FileMode) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir():
			os.Chmod(path, dirs)
		case d.Type().IsRegular():
			os.Chmod(path, files)
		}
		return nil
	})
}

// share lets the reader read the cache and not write it.
func (r *reader) share() {
	if r.asRoot {
		chmodTree(r.owner.cacheDir(), 0o755, 0o644)
	} else {
		chmodTree(r.owner.cacheDir(), 0o555, 0o444)
	}
}

// asOwner runs fn with the cache writable by its owner, then shares it
// again.
func (r *reader) asOwner(fn func()) {
	if !r.asRoot {
		chmodTree(r.owner.cacheDir(), 0o755, 0o644)
	}
	fn()
	r.share()
}

// cmd returns hubsnap with args, run as the reader.
func (r *reader) cmd(args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, r.prefix...), r.bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = childEnv(r.owner)
	cmd.Dir = r.base
	return cmd
}

// run runs hubsnap as the reader, to its end.
func (r *reader) run(tb testing.TB, args ...string) result {
	tb.Helper()
	cmd := r.cmd(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		tb.Fatalf("hubsnap %q: %v", args, err)
	}
	res := result{args: args, code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	noPanic(tb, "hubsnap "+strings.Join(args, " "), res.stderr)
	return res
}

// owns runs hubsnap as the owner; it must succeed.
func (r *reader) owns(tb testing.TB, args ...string) result {
	tb.Helper()
	res := runChild(tb, r.owner, "", args...)
	if res.code != 0 {
		tb.Fatalf("owner: hubsnap %q: exit %d: %s", args, res.code, res.stderr)
	}
	return res
}

// wantFailure checks a failed run: exit 1, one line naming every word,
// never SQLite's own words.
func wantFailure(tb testing.TB, res result, words ...string) {
	tb.Helper()
	if res.code != exitError {
		tb.Errorf("hubsnap %q: exit %d, want 1; stdout %q; stderr %q", res.args, res.code, res.stdout, res.stderr)
	}
	mentions(tb, "stderr of hubsnap "+strings.Join(res.args, " "), res.stderr, words...)
	for _, bad := range []string{"unable to open database file", "(14)", "attempt to write a readonly database"} {
		if strings.Contains(res.stderr, bad) {
			tb.Errorf("hubsnap %q: stderr %q speaks SQLite's %q", res.args, res.stderr, bad)
		}
	}
}

// currentIs checks which release `snapshot list --json` marks current.
func currentIs(tb testing.TB, res result, want string) {
	tb.Helper()
	if res.code != 0 {
		tb.Fatalf("hubsnap %q: exit %d: %s", res.args, res.code, res.stderr)
	}
	if !strings.Contains(compactJSON(res.stdout), `"release":"`+want+`","version"`) ||
		strings.Count(compactJSON(res.stdout), `"current":true`) != 1 {
		tb.Errorf("hubsnap %q: %s; want %s current", res.args, res.stdout, want)
	}
}

func compactJSON(s string) string { return strings.Join(strings.Fields(s), "") }

func TestReadOnlyCache(t *testing.T) {
	t.Parallel()
	r := newReader(t)
	shop, err := filepath.Abs(shopPath)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	rel41 := filepath.Join(work, "rel_41.json")
	if err := os.WriteFile(rel41, release(t, "rel_41", 41), 0o644); err != nil {
		t.Fatal(err)
	}
	r.owns(t, "snapshot", "import", rel41)
	r.owns(t, "snapshot", "import", shop) // rel_42, current
	r.share()
	cache := r.owner.cacheDir()
	index := filepath.Join(cache, "index.db")

	// Reading works, and says nothing when nothing is amiss.
	res := r.run(t, "snapshot", "list", "--json")
	currentIs(t, res, "rel_42")
	if res.stderr != "" {
		t.Errorf("snapshot list: stderr %q, want nothing", res.stderr)
	}
	if res := r.run(t, "snapshot", "diff", "rel_41", "rel_42", "--json"); res.code != 0 {
		t.Errorf("snapshot diff: exit %d: %s", res.code, res.stderr)
	}

	// Writes fail, saying which cache and why; nothing changes.
	why := "permission denied"
	wantFailure(t, r.run(t, "snapshot", "use", "rel_41"), "cannot change the cache", cache, why)
	wantFailure(t, r.run(t, "snapshot", "import", shop), "cannot change the cache", cache, why)
	wantFailure(t, r.run(t, "snapshot", "prune", "--keep", "1"), "cannot change the cache", cache, why)
	currentIs(t, r.run(t, "snapshot", "list", "--json"), "rel_42")

	// serve answers, and sees the owner's changes as they commit: the
	// index is not opened immutable.
	t.Run("serve", func(t *testing.T) {
		cmd := r.cmd("serve")
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		ctx := t.Context()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "ro", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: signalLimit}, nil)
		if err != nil {
			t.Fatalf("connect to hubsnap serve: %v; stderr: %s", err, stderr)
		}
		defer cs.Close()
		if id, _, err := stressRelease(ctx, cs); err != nil || id != "rel_42" {
			t.Fatalf("release_info = %q, %v; want rel_42", id, err)
		}
		r.asOwner(func() { r.owns(t, "snapshot", "use", "rel_41") })
		done := time.Now()
		for {
			id, _, err := stressRelease(ctx, cs)
			if err == nil && id == "rel_41" {
				break
			}
			if time.Since(done) > 2*time.Second {
				t.Fatalf("serve still answers %q, %v, 2 s after the owner's use", id, err)
			}
		}
		mentions(t, "serve's stderr", stderr.String(), "cannot write the cache", "changes to the release files")
		r.asOwner(func() { r.owns(t, "snapshot", "use", "rel_42") })
	})

	// Release files changed behind hubsnap's back are not indexed, and
	// that is said.
	r.asOwner(func() {
		later := time.Now().Add(time.Hour)
		os.Chtimes(filepath.Join(cache, "releases", "shop", "rel_41.json"), later, later)
	})
	res = r.run(t, "snapshot", "list", "--json")
	currentIs(t, res, "rel_42")
	mentions(t, "snapshot list's stderr on changed files", res.stderr, "not indexed", "cannot write")
	r.asOwner(func() { r.owns(t, "snapshot", "list") })

	// An index made without its -shm file (by an older hubsnap) cannot be
	// read safely: the error names the file and the command that fixes it.
	r.asOwner(func() {
		for _, s := range []string{"-wal", "-shm"} {
			if err := os.Remove(index + s); err != nil {
				t.Fatal(err)
			}
		}
	})
	wantFailure(t, r.run(t, "snapshot", "list"), index+"-shm", "hubsnap snapshot list --cache-dir "+cache)
	r.asOwner(func() { r.owns(t, "snapshot", "list") })
	currentIs(t, r.run(t, "snapshot", "list", "--json"), "rel_42")

	// An index that needs a migration cannot be migrated by the reader.
	var newest int
	var name string
	r.asOwner(func() {
		db := openIndex(t, index)
		defer db.Close()
		if err := db.QueryRow(`SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1`).Scan(&newest, &name); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`DELETE FROM schema_migrations WHERE version = ?`, newest); err != nil {
			t.Fatal(err)
		}
	})
	wantFailure(t, r.run(t, "snapshot", "list"), index, "must be upgraded", "hubsnap snapshot list --cache-dir "+cache)
	r.asOwner(func() {
		db := openIndex(t, index)
		defer db.Close()
		if _, err := db.Exec(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, newest, name); err != nil {
			t.Fatal(err)
		}
	})

	// An index the reader may not read at all: the path and the cause.
	if r.asRoot {
		os.Chmod(index, 0o600)
	} else {
		os.Chmod(index, 0o200)
	}
	wantFailure(t, r.run(t, "snapshot", "list"), index, "permission denied")
	r.share()
	currentIs(t, r.run(t, "snapshot", "list", "--json"), "rel_42")
}

// openIndex opens the index at path for the test to change by hand. Its
// one connection keeps the -wal and -shm files when it closes, as
// hubsnap's writer does.
func openIndex(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	// The index was made by a child process: register vfs=hubsnap here.
	store.InitSQLite()

	db, err := sql.Open("sqlite", "file:"+path+"?vfs=hubsnap&_pragma=busy_timeout(10000)&_pragma=journal_size_limit(0)") // hubsnap's page checksums kept
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		_, err := dc.(sqlite.FileControl).FileControlPersistWAL("main", 1)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// A cache on a read-only mount, which no one can write: read as it is
// (immutable when its -shm file is missing), writes refused with the
// filesystem's reason.
func TestReadOnlyMount(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("read-only mount: SKIPPED, mounting needs root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("read-only mount: SKIPPED, no unshare to mount in a namespace of the test's own")
	}
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop", "HUBSNAP_ENVIRONMENT", "dev")
	work := t.TempDir()
	rel41 := filepath.Join(work, "rel_41.json")
	if err := os.WriteFile(rel41, release(t, "rel_41", 41), 0o644); err != nil {
		t.Fatal(err)
	}
	shop, _ := filepath.Abs(shopPath)
	c.ok("snapshot", "import", rel41)
	c.ok("snapshot", "import", shop)
	cache := c.cacheDir()
	// mounted runs hubsnap with the cache bind-mounted read-only on
	// itself, in a mount namespace of its own.
	mounted := func(args ...string) *exec.Cmd {
		argv := append([]string{"--mount", "--propagation", "private", "--", "sh", "-c",
			`mount --bind -o ro "$0" "$0" && exec "$@"`, cache, hubsnapBin(t)}, args...)
		cmd := exec.Command(unshare, argv...)
		cmd.Env, cmd.Dir = childEnv(c), work
		return cmd
	}
	run := func(args ...string) result {
		t.Helper()
		cmd := mounted(args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		return result{args: args, code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	}
	if res := run("version"); res.code != 0 {
		t.Skipf("read-only mount: SKIPPED, cannot mount in a namespace: %s", strings.TrimSpace(res.stderr))
	}

	currentIs(t, run("snapshot", "list", "--json"), "rel_42")
	wantFailure(t, run("snapshot", "use", "rel_41"), "cannot change the cache", cache, "read-only file system")
	if res := run("snapshot", "diff", "--json"); res.code != 0 {
		t.Errorf("snapshot diff: exit %d: %s", res.code, res.stderr)
	}
	cmd := mounted("serve")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ro", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: signalLimit}, nil)
	if err != nil {
		t.Fatalf("connect to hubsnap serve: %v; stderr: %s", err, stderr)
	}
	if id, _, err := stressRelease(t.Context(), cs); err != nil || id != "rel_42" {
		t.Errorf("release_info = %q, %v; want rel_42; stderr: %s", id, err, stderr)
	}
	cs.Close()

	// Without its -shm file (an index of an older hubsnap), immutable.
	for _, s := range []string{"-wal", "-shm"} {
		os.Remove(filepath.Join(cache, "index.db"+s))
	}
	currentIs(t, run("snapshot", "list", "--json"), "rel_42")
}
