package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TestNewCompilesNothing: New only records its options; the parser is
// compiled at the first Analyze or Prepare, so a process that never
// analyses pays nothing for it.
func TestNewCompilesNothing(t *testing.T) {
	a, err := New(context.Background(), Options{CacheDir: filepath.Join(t.TempDir(), "wazero")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.p.fast.rt != nil || a.p.guarded.rt != nil || a.p.cache != nil {
		t.Error("New compiled the parser or opened its cache")
	}
	if _, err := os.Stat(a.p.cacheDir); !os.IsNotExist(err) {
		t.Errorf("New created the cache folder (%v)", err)
	}
}

// TestCompilationCacheWritten: Prepare compiles the parser into the cache
// folder, and a second Analyzer on that folder works from it.
func TestCompilationCacheWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wazero")
	for i := range 2 {
		a, err := New(context.Background(), Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Prepare(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := a.Analyze(context.Background(), NewTables(shopSchema()), snapshot.Logic{SQL: "SELECT id FROM users"})
		if got.Unjudged != "" || len(got.Result) != 1 {
			t.Errorf("analyzer %d: %+v", i, got)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var files int
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Error("the compilation cache folder is empty")
	}
}
