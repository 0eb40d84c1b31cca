package pgoracle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Server is a private PostgreSQL cluster: its own data folder in a
// temporary folder, reached through a unix socket only
// (listen_addresses empty), stopped and removed when the test ends.
type Server struct {
	// Version is the server's version, e.g. "15.18".
	Version string
	dir     string // holds data/ and the socket
}

// serverUser is the user the cluster runs as when the test runs as root
// (initdb refuses root).
const serverUser = "postgres"

// RequireEnv names the environment variable that turns Start's skip into
// a failure: CI sets it, so that a missing PostgreSQL cannot pass
// unnoticed.
const RequireEnv = "PGORACLE_REQUIRE"

// Start runs a private cluster for the test, or skips the test with one
// line when PostgreSQL is not installed (fails instead when RequireEnv is
// set). As root, initdb and postgres run as the postgres user in a folder
// it owns.
func Start(tb testing.TB) *Server {
	tb.Helper()
	skip := tb.Skipf
	if os.Getenv(RequireEnv) != "" {
		skip = tb.Fatalf
	}
	bin, err := findPostgres()
	if err != nil {
		skip("pgoracle: skipped, no PostgreSQL here (%v); apt-get install -y postgresql to run it", err)
	}
	var ids *userIDs
	if os.Geteuid() == 0 {
		u, err := user.Lookup(serverUser)
		if err != nil {
			skip("pgoracle: skipped, running as root and there is no %s user to run PostgreSQL as (%v)", serverUser, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		ids = &userIDs{uid: uint32(uid), gid: uint32(gid)}
	}
	if _, ok := procAttr(ids); !ok {
		skip("pgoracle: skipped, cannot run PostgreSQL as the %s user on this system", serverUser)
	}
	dir, err := os.MkdirTemp("", "pgoracle-")
	if err != nil {
		tb.Fatalf("pgoracle: cluster folder: %v", err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if ids != nil {
		if err := os.Chown(dir, int(ids.uid), int(ids.gid)); err != nil {
			tb.Fatalf("pgoracle: give the cluster folder to %s: %v", serverUser, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr, _ = procAttr(ids)
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		tb.Fatalf("pgoracle: initdb: %v\n%s", err, out)
	}

	s := &Server{dir: dir}
	s.run(tb, bin, ids)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := s.Connect(ctx, "postgres", nil)
	if err != nil {
		tb.Fatalf("pgoracle: connect: %v", err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&s.Version); err != nil {
		tb.Fatalf("pgoracle: server version: %v", err)
	}
	s.Version, _, _ = strings.Cut(s.Version, " ")
	return s
}

// Major is the server's major version, e.g. 15.
func (s *Server) Major() int {
	major, _, _ := strings.Cut(s.Version, ".")
	n, _ := strconv.Atoi(major)
	return n
}

// run starts postgres and waits until it accepts connections; cleanup
// stops it (a fast shutdown, then a kill).
func (s *Server) run(tb testing.TB, bin string, ids *userIDs) {
	tb.Helper()
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
		"-k", s.dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=10", "-c", "shared_buffers=32MB")
	cmd.SysProcAttr, _ = procAttr(ids)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatalf("pgoracle: postgres stderr: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("pgoracle: start postgres: %v", err)
	}
	ready := make(chan struct{})
	var mu sync.Mutex
	var log []string
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		once := sync.OnceFunc(func() { close(ready) })
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			if len(log) < 200 {
				log = append(log, line)
			}
			mu.Unlock()
			if strings.Contains(line, "database system is ready to accept connections") {
				once()
			}
		}
	}()
	exited := make(chan error, 1)
	go func() {
		<-scanned
		exited <- cmd.Wait()
	}()
	logText := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(log, "\n")
	}
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt) // fast shutdown
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case <-ready:
	case err := <-exited:
		exited <- err // for the cleanup
		tb.Fatalf("pgoracle: postgres exited before it was ready: %v\n%s", err, logText())
	case <-time.After(60 * time.Second):
		tb.Fatalf("pgoracle: postgres not ready after 60s:\n%s", logText())
	}
}

// Connect opens a connection to database db as the postgres superuser.
// onNotice, when not nil, receives every notice and log message the
// server sends.
func (s *Server) Connect(ctx context.Context, db string, onNotice func(*pgconn.Notice)) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=5432 user=postgres dbname=%s sslmode=disable", s.dir, db))
	if err != nil {
		return nil, fmt.Errorf("connection config: %w", err)
	}
	cfg.RuntimeParams = map[string]string{"TimeZone": "UTC", "DateStyle": "ISO, YMD", "IntervalStyle": "postgres"}
	if onNotice != nil {
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { onNotice(n) }
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", db, err)
	}
	return conn, nil
}

// debianBins is where Debian's packages put each major version's
// programs; a test points it elsewhere.
var debianBins = "/usr/lib/postgresql/*/bin"

// findPostgres returns the folder holding initdb and postgres: the one in
// PATH, else the newest /usr/lib/postgresql/*/bin (Debian's layout).
func findPostgres() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(debianBins)
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(a)), 64)
		vb, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(b)), 64)
		return -cmpFloat(va, vb)
	})
	for _, dir := range dirs {
		_, e1 := os.Stat(filepath.Join(dir, "initdb"))
		_, e2 := os.Stat(filepath.Join(dir, "postgres"))
		if e1 == nil && e2 == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no initdb and postgres in PATH or /usr/lib/postgresql/*/bin")
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// userIDs are the ids a child process runs as.
type userIDs struct{ uid, gid uint32 }
