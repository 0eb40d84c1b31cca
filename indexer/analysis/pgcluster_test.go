package analysis

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	pgOnce sync.Once
	pgSock string
	pgStop func()
	pgErr  error
)

// pgHost returns the socket folder of a PostgreSQL the test may use, or
// skips the test.
func pgHost(tb testing.TB) string {
	tb.Helper()
	if h := os.Getenv("HUBSNAP_TEST_PGHOST"); h != "" {
		return h
	}
	pgOnce.Do(func() { pgSock, pgStop, pgErr = startCluster() })
	if pgErr != nil {
		tb.Skipf("no PostgreSQL (%v): install postgresql or set HUBSNAP_TEST_PGHOST to compare with it", pgErr)
	}
	return pgSock
}

// TestMain stops the private cluster, if one was started.
func TestMain(m *testing.M) {
	code := m.Run()
	if pgStop != nil {
		pgStop()
	}
	os.Exit(code)
}

// pgBin finds the folder of initdb and pg_ctl.
func pgBin() (string, error) {
	if b := os.Getenv("PG_BIN"); b != "" {
		return b, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("initdb not found")
}

// startCluster starts a private PostgreSQL cluster in a temporary folder,
// listening on a unix socket only. initdb refuses root: as root it runs as
// the postgres user.
func startCluster() (string, func(), error) {
	bin, err := pgBin()
	if err != nil {
		return "", nil, err
	}
	if _, err := exec.LookPath("psql"); err != nil {
		return "", nil, fmt.Errorf("psql not found")
	}
	dir, err := os.MkdirTemp("", "hubsnap-analysis-pg-")
	if err != nil {
		return "", nil, err
	}
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	if os.Geteuid() == 0 {
		if err := exec.Command("chown", "postgres", dir).Run(); err != nil {
			return "", nil, fmt.Errorf("chown to postgres: %w", err)
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("su", "postgres", "-s", "/bin/sh", "-c", shellJoin(args))
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories=%s -c fsync=off", dir)
	if out, err := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "start").CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("pg_ctl start: %w: %s", err, out)
	}
	stop := func() {
		run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
		os.RemoveAll(dir)
	}
	return dir, stop, nil
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
