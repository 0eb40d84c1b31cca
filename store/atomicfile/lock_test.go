package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// holdEnv, set in a child's environment, makes the test binary a writer
// that creates a temp file in that folder with CreateTemp, prints its
// path, and keeps it open until its stdin closes (or it is killed).
const holdEnv = "ATOMICFILE_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		f, err := CreateTemp(filepath.Join(dir, "rel_1.json"))
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		f.WriteString(strings.Repeat("x", 1000))
		fmt.Println(f.Name())
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder is another process holding a temp file open.
type holder struct {
	cmd  *exec.Cmd
	path string
}

func startHolder(t *testing.T, dir string) *holder {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdinPipe(); err != nil { // held open: the child waits
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error:") {
		t.Fatalf("holder: %q, %v", line, err)
	}
	return &holder{cmd: cmd, path: strings.TrimSpace(line)}
}

// kill kills the holder with SIGKILL, as a crash would.
func (h *holder) kill(t *testing.T) {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.cmd.Wait()
}

// RemoveLeftovers removes, at once, every temp file no live writer holds,
// however young, and none that a live writer holds, in this process or
// another.
func TestRemoveLeftovers(t *testing.T) {
	dir := t.TempDir()
	other := startHolder(t, dir) // another process's writer, alive
	mine, err := CreateTemp(filepath.Join(dir, "rel_2.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	files := map[string]bool{ // name -> want it removed
		".rel_40.json.part-123":        true, // a dead writer's, a moment old
		".rel_40.json.part-old-abc":    true, // a backup left by Replace
		".rel_40.json.part-gone-abc":   true, // a file Remove put aside
		"rel_38.json":                  false,
		".editor-swap":                 false,
		"contexts.json.part-not-ours1": false, // not hidden: not ours
	}
	for name := range files {
		writeFile(t, filepath.Join(dir, name), "{}")
	}
	if err := os.Mkdir(filepath.Join(dir, ".x.part-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "keep")
	if err := os.Symlink(target, filepath.Join(dir, ".x.part-link")); err != nil {
		t.Fatal(err)
	}

	got := RemoveLeftovers(dir, time.Now())
	if want := (Leftovers{Files: 3, Bytes: 6}); got != want {
		t.Errorf("RemoveLeftovers = %+v, want %+v", got, want)
	}
	for name, gone := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if got := errors.Is(err, os.ErrNotExist); got != gone {
			t.Errorf("%s: removed = %v, want %v", name, got, gone)
		}
	}
	for _, p := range []string{other.path, mine.Name(), filepath.Join(dir, ".x.part-dir"), filepath.Join(dir, ".x.part-link"), target} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: a live writer's temp file, a folder or a link (%v)", filepath.Base(p), err)
		}
	}

	// Once its writer is killed, its file is a leftover.
	other.kill(t)
	if got, want := RemoveLeftovers(dir, time.Now()), (Leftovers{Files: 1, Bytes: 1000}); got != want {
		t.Errorf("after the writer died: RemoveLeftovers = %+v, want %+v", got, want)
	}
	if _, err := os.Stat(other.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dead writer's temp file is still there: %v", err)
	}
	if _, err := os.Stat(mine.Name()); err != nil {
		t.Errorf("this process's open temp file was removed: %v", err)
	}
	RemoveLeftovers(filepath.Join(dir, "missing"), time.Now()) // no panic, no error
}

// A cleaner that runs while writers create temp files never takes one
// from a writer: one it removes in the instant between its creation and
// its lock is made again.
func TestCreateTempBesideACleaner(t *testing.T) {
	dir := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	cleaned := make(chan struct{})
	go func() {
		defer close(cleaned)
		for ctx.Err() == nil {
			RemoveLeftovers(dir, time.Now())
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lost []string
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				f, err := CreateTemp(filepath.Join(dir, fmt.Sprintf("w%d.json", w)))
				if err != nil {
					mu.Lock()
					lost = append(lost, err.Error())
					mu.Unlock()
					return
				}
				f.WriteString("data")
				if _, err := os.Stat(f.Name()); err != nil {
					mu.Lock()
					lost = append(lost, fmt.Sprintf("writer %d, file %d: %v", w, i, err))
					mu.Unlock()
				}
				if err := os.Rename(f.Name(), filepath.Join(dir, fmt.Sprintf("w%d-%d.json", w, i))); err != nil {
					mu.Lock()
					lost = append(lost, fmt.Sprintf("rename: %v", err))
					mu.Unlock()
				}
				f.Close()
			}
		})
	}
	wg.Wait()
	stop()
	<-cleaned
	for _, l := range lost {
		t.Error(l)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 800 {
		t.Errorf("%d files, want 800", len(entries))
	}
}

// The cache lock is held by one process at a time, waits for its holder,
// gives up after its wait with ErrBusy, and is free again once the holder
// lets go.
func TestLockFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.lock")
	l, err := LockFile(ctx, path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockFile(ctx, path, 50*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Errorf("second lock: %v, want ErrBusy", err)
	}
	got := make(chan error, 1)
	go func() {
		l2, err := LockFile(ctx, path, 10*time.Second)
		if err == nil {
			l2.Unlock()
		}
		got <- err
	}()
	l.Unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("lock after unlock: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was not taken after its holder let go")
	}
	cctx, cancel := context.WithCancel(ctx)
	l, _ = LockFile(ctx, path, time.Second)
	defer l.Unlock()
	cancel()
	if _, err := LockFile(cctx, path, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("lock with a cancelled context: %v", err)
	}
	// Never through a link.
	link := filepath.Join(t.TempDir(), "link.lock")
	os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), link)
	if _, err := LockFile(ctx, link, time.Second); err == nil {
		t.Error("LockFile followed a symbolic link")
	}
}
