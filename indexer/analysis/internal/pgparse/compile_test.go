package pgparse

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCompileElsewhere checks SetCompiler's contract: a parser whose folder
// lacks the compiled module asks the compiler once for each engine it
// readies, then loads what it wrote; a folder Compile filled (the markers)
// is never asked about again; what an older build left in the folder
// goes; and a failing compiler leaves the parser compiling by itself.
func TestCompileElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles PostgreSQL's parser")
	}
	ctx := context.Background()
	dir := t.TempDir()
	calls := 0
	SetCompiler(func(ctx context.Context, d string, guarded bool) error {
		calls++
		if d != dir {
			t.Errorf("compiler called for %q, want %q", d, dir)
		}
		return Compile(ctx, d, guarded) // in this process: the test is the other process
	})
	defer SetCompiler(nil)

	// What an older build left: its markers and another wazero version's
	// folder go once this build compiles; another platform's folder stays.
	platform := "-" + runtime.GOARCH + "-" + runtime.GOOS
	stale := []string{"hubsnap-parser-0123456789abcdef01234567-fast", "wazero-v0.0.1" + platform}
	otherPlatform := "wazero-v0.0.1-vax-vms"
	for _, name := range []string{stale[1], otherPlatform} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, stale[0]), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	p := New(dir)
	for _, e := range []*engine{&p.fast, &p.guarded} {
		if err := p.readyEngine(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	p.close()
	if calls != 2 {
		t.Errorf("compiler called %d times for an empty folder and two engines, want 2", calls)
	}
	for _, guarded := range []bool{false, true} {
		if !compiled(dir, guarded) {
			t.Errorf("engine (guarded %v) not marked compiled", guarded)
		}
	}

	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s, left by another build, is still there", name)
		}
	}
	for _, name := range []string{otherPlatform, "wazero-" + wazeroFolderVersion() + platform} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s is gone: %v", name, err)
		}
	}

	p = New(dir)
	if err := p.readyEngine(ctx, &p.fast); err != nil {
		t.Fatal(err)
	}
	p.close()
	if calls != 2 {
		t.Errorf("compiler called again for a filled folder (%d calls)", calls)
	}

	// A compiler that fails: the parser compiles, and works.
	other := t.TempDir()
	SetCompiler(func(context.Context, string, bool) error { return context.Canceled })
	p = New(other)
	defer p.close()
	if err := p.readyEngine(ctx, &p.fast); err != nil {
		t.Fatalf("after a failing compiler: %v", err)
	}
	if _, err := p.Scan(ctx, "select 1"); err != nil {
		t.Fatalf("parser after a failing compiler: %v", err)
	}
}
