package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

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
