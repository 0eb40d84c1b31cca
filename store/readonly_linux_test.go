package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mountFullDisk mounts a small tmpfs for the test, or skips the test when it
// cannot (mounting needs CAP_SYS_ADMIN). fill fills it up.
func mountFullDisk(t *testing.T) (dir string, fill func()) {
	t.Helper()
	dir = t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("full disk: SKIPPED, cannot mount a tmpfs to fill (%v)", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir, func() {
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
		f.Close()
	}
}

// On a full disk the index still opens, read-only: reads answer, writes
// fail with ErrDiskFull in plain words.
func TestOpenOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	dir, fill := mountFullDisk(t)
	path := filepath.Join(dir, "index.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, sampleSnapshot(), true)
	s.Close()
	fill()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	defer s.Close()
	if !s.ReadOnly() {
		t.Error("not read-only on a full disk")
	}
	if _, err := s.TableJSON(ctx, shopDev, "main", "users"); err != nil {
		t.Errorf("read on a full disk: %v", err)
	}
	if _, err := s.ReleaseJSON(ctx, shopDev); err != nil {
		t.Errorf("read on a full disk: %v", err)
	}
	err = s.SetCurrent(ctx, "shop", "dev", "rel_42")
	if !errors.Is(err, ErrDiskFull) {
		t.Errorf("write on a full disk: %v, want ErrDiskFull", err)
	}
}

// A write that fills the disk fails with ErrDiskFull, and the index is as
// it was.
func TestWriteFillsTheDisk(t *testing.T) {
	ctx := context.Background()
	dir, fill := mountFullDisk(t)
	s, err := Open(ctx, filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)
	fill()
	err = s.PutRelease(ctx, smallSnapshot("shop", "rel_50", "dev", 50, "t", 3000), FileState{}, false, nil)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("a write on a full disk: %v, want ErrDiskFull", err)
	}
	if got := rowCounts(t, s); len(got) != len(before) || got["tables"] != before["tables"] {
		t.Errorf("rows after a failed write: %v, want %v", got, before)
	}
}
