package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hubsnap/hubsnap/store"
)

// ids lists the release ids of infos.
func ids(infos []store.ReleaseInfo) []string {
	var out []string
	for _, ri := range infos {
		out = append(out, ri.ID)
	}
	return out
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for v := int64(40); v <= 43; v++ {
		importDoc(t, dir, shopDoc(t, fmt.Sprintf("rel_%d", v), v, nil))
	}
	importDoc(t, dir, shopDoc(t, "rel_p1", 1, func(d map[string]any) { d["release"].(map[string]any)["environment"] = "prod" }))
	c := openCache(t, dir)
	if _, err := c.Use(ctx, "shop", "dev", "rel_41"); err != nil { // an older release is current
		t.Fatal(err)
	}

	if _, err := c.Prune(ctx, "shop", "dev", 0); store.ErrorCode(err) != store.InvalidArgument {
		t.Errorf("keep 0: %v, want INVALID_ARGUMENT", err)
	}
	res, err := c.Prune(ctx, "shop", "dev", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(res.Removed), []string{"rel_42", "rel_40"}; !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	if got, want := ids(res.Kept), []string{"rel_43", "rel_41"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	list, err := c.Releases(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(list), []string{"rel_43", "rel_41", "rel_p1"}; !slices.Equal(got, want) {
		t.Errorf("releases after prune: %v, want %v", got, want)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "releases", "shop"))
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if want := []string{"dev.current", "prod.current", "rel_41.json", "rel_43.json", "rel_p1.json"}; !slices.Equal(files, want) {
		t.Errorf("files after prune: %v, want %v", files, want)
	}
	if cur, err := c.Store().Current(ctx, shopDev); err != nil || cur.ID != "rel_41" {
		t.Errorf("current after prune: %v, %v", cur.ID, err)
	}

	// Nothing more to remove; and a reopened cache agrees with the files.
	if res, err := c.Prune(ctx, "shop", "dev", 1); err != nil || len(res.Removed) != 0 {
		t.Errorf("second prune: %v, %v", ids(res.Removed), err)
	}
	c.Close()
	c = openCache(t, dir)
	if list, _ := c.Releases(ctx, "shop"); !slices.Equal(ids(list), []string{"rel_43", "rel_41", "rel_p1"}) {
		t.Errorf("after reopening: %v", ids(list))
	}
}

// A release that the .current file names, though the index does not know
// it yet, is never pruned; and a failed hook leaves file and rows alone.
func TestPruneRefusesWhatTheCurrentFileNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_40", 40, nil))
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	c := openCache(t, dir)
	ri, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: "shop", ID: "rel_40"})
	if err != nil {
		t.Fatal(err)
	}
	// Another process points dev at rel_40 between the listing and the
	// transaction.
	writeFile(t, c.currentFile("shop", "dev"), []byte("rel_40\n"))
	if err := c.pruneRelease(ctx, ri); store.ErrorCode(err) != store.InvalidArgument {
		t.Fatalf("prune of the release .current names: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := os.Stat(c.releaseFile("shop", "rel_40", releaseExt)); err != nil {
		t.Errorf("release file: %v", err)
	}
	if _, err := c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: "shop", ID: "rel_40"}); err != nil {
		t.Errorf("index rows: %v", err)
	}
	// The index's own current release is refused by the store too.
	cur, _ := c.store.Current(ctx, shopDev)
	if err := c.store.PruneRelease(ctx, store.ReleaseKey{Project: "shop", ID: cur.ID}); store.ErrorCode(err) != store.InvalidArgument {
		t.Errorf("PruneRelease of the current release: %v, want INVALID_ARGUMENT", err)
	}
}
