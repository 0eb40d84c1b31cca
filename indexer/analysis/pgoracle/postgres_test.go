package pgoracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stopTB records how Start gives up instead of stopping the test.
type stopTB struct {
	testing.TB
	how, msg string
}

type stopped struct{}

func (s *stopTB) Skipf(format string, args ...any) {
	s.how, s.msg = "skip", fmt.Sprintf(format, args...)
	panic(stopped{})
}

func (s *stopTB) Fatalf(format string, args ...any) {
	s.how, s.msg = "fatal", fmt.Sprintf(format, args...)
	panic(stopped{})
}

func startStopped(tb *stopTB) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
		}
	}()
	Start(tb)
}

// Without PostgreSQL, Start skips with one line, or fails when CI asks
// for PostgreSQL.
func TestStartWithoutPostgres(t *testing.T) {
	old := debianBins
	t.Cleanup(func() { debianBins = old })
	debianBins = filepath.Join(t.TempDir(), "*", "bin")
	t.Setenv("PATH", t.TempDir())

	t.Setenv(RequireEnv, "")
	tb := &stopTB{TB: t}
	startStopped(tb)
	if tb.how != "skip" || strings.Contains(tb.msg, "\n") || !strings.Contains(tb.msg, "no PostgreSQL") {
		t.Errorf("Start without PostgreSQL: %s %q, want one skip line", tb.how, tb.msg)
	}

	t.Setenv(RequireEnv, "1")
	tb = &stopTB{TB: t}
	startStopped(tb)
	if tb.how != "fatal" {
		t.Errorf("Start without PostgreSQL and %s set: %s, want a failure", RequireEnv, tb.how)
	}
}

// The newest of Debian's versions is found when PATH has none.
func TestFindPostgresNewest(t *testing.T) {
	old := debianBins
	t.Cleanup(func() { debianBins = old })
	root := t.TempDir()
	debianBins = filepath.Join(root, "*", "bin")
	t.Setenv("PATH", t.TempDir())
	for _, v := range []string{"9.6", "15", "13"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"initdb", "postgres"} {
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := findPostgres()
	if want := filepath.Join(root, "15", "bin"); err != nil || got != want {
		t.Errorf("findPostgres() = %q, %v; want %q", got, err, want)
	}
}
