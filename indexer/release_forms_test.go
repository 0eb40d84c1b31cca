package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// names lists the files of dir, temp files (dot files) left out.
func names(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// commented returns shop's document of release id with the comment of
// table posts set to comment.
func commented(tb testing.TB, id string, version int64, comment string) []byte {
	return shopDoc(tb, id, version, func(doc map[string]any) {
		for _, tbl := range doc["tables"].([]any) {
			if tbl := tbl.(map[string]any); tbl["name"] == "posts" {
				tbl["comment"] = comment
			}
		}
	})
}

// postsComment returns the comment of table posts of shop/dev's current
// release, as a new Cache on dir reads it.
func postsComment(tb testing.TB, dir string) string {
	tb.Helper()
	c := openCache(tb, dir)
	defer c.Close()
	tbl, err := readTable(tb, c.Store(), shopDev, "", "posts")
	if err != nil {
		tb.Fatal(err)
	}
	return tbl.Comment
}

// A file dropped in by hand is indexed as it is and never rewritten, in
// either form. Writing the release again writes it in the form its size
// asks for, and removes the other form in the same change: one release,
// one file.
func TestReleaseFileChangesForm(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "releases/shop")
	putFile(t, dir, "shop", "rel_41.json.zst", packBytes(t, commented(t, "rel_41", 41, "dropped compressed")))
	putFile(t, dir, "shop", "dev.current", []byte("rel_41\n"))
	before := readFile(t, filepath.Join(folder, "rel_41.json.zst"))
	if got := postsComment(t, dir); got != "dropped compressed" {
		t.Errorf("from a compressed file dropped in: comment %q", got)
	}
	if after := readFile(t, filepath.Join(folder, "rel_41.json.zst")); after != before {
		t.Error("the compressed release file was rewritten")
	}

	// Imported again, small: plain, and the compressed file is gone.
	importDoc(t, dir, commented(t, "rel_41", 41, "imported plain"))
	if got, want := names(t, folder), []string{"dev.current", "rel_41.json"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	if got := postsComment(t, dir); got != "imported plain" {
		t.Errorf("after the plain import: comment %q", got)
	}

	// Imported again over the threshold: compressed, the plain file gone.
	setPackThreshold(t, 1000)
	importDoc(t, dir, commented(t, "rel_41", 41, "imported compressed"))
	if got, want := names(t, folder), []string{"dev.current", "rel_41.json.zst"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	if got := postsComment(t, dir); got != "imported compressed" {
		t.Errorf("after the compressed import: comment %q", got)
	}
}

// With both forms of one release there, the one modified last is the
// release file (the plain one on a tie); the cheap check agrees with the
// reconcile, so an unchanged cache is not reconciled again.
func TestBothFormsTheNewerWins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	plain := filepath.Join(dir, "releases/shop/rel_42.json")
	packedFile := filepath.Join(dir, "releases/shop/rel_42.json.zst")
	writeFile(t, packedFile, packBytes(t, commented(t, "rel_42", 42, "From the compressed file")))
	later := time.Now().Add(time.Minute)
	os.Chtimes(packedFile, later, later)

	comment := func() string {
		t.Helper()
		c := openCache(t, dir)
		defer c.Close()
		if stale, err := c.stale(ctx); err != nil || stale {
			t.Errorf("after the open's reconcile: stale %v, %v; want the cheap check to agree", stale, err)
		}
		return postsComment(t, dir)
	}
	if got := comment(); got != "From the compressed file" {
		t.Errorf("with the compressed file newer: comment %q", got)
	}
	evenLater := later.Add(time.Minute)
	os.Chtimes(plain, evenLater, evenLater)
	if got := comment(); got != "Blog posts" {
		t.Errorf("with the plain file newer: comment %q", got)
	}
	// A tie goes to the plain file.
	os.Chtimes(packedFile, evenLater, evenLater)
	if got := comment(); got != "Blog posts" {
		t.Errorf("with both of one time: comment %q", got)
	}
	// The plain file removed: the compressed one is read.
	os.Remove(plain)
	if got := comment(); got != "From the compressed file" {
		t.Errorf("with the plain file gone: comment %q", got)
	}
}

// A compressed release file that is damaged (a byte changed: zstd checks
// each frame against its checksum) or cut short is skipped with a
// warning and kept, like an invalid file; its release leaves the index,
// and the other releases are served.
func TestDamagedCompressedFileIsSkipped(t *testing.T) {
	for _, tc := range []struct {
		name string
		harm func([]byte) []byte
	}{
		{"flipped", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }},
		{"cut", func(b []byte) []byte { return b[:len(b)*2/3] }},
		{"trailing", func(b []byte) []byte { return append(b, "garbage"...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setPackThreshold(t, 1000)
			ctx := context.Background()
			dir := t.TempDir()
			importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
			importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
			path := filepath.Join(dir, "releases/shop/rel_41.json.zst")
			writeFile(t, path, tc.harm([]byte(readFile(t, path))))
			c := openCache(t, dir)
			list, err := c.Releases(ctx, "shop")
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].ID != "rel_42" {
				t.Errorf("releases = %+v, want only rel_42", list)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the damaged file was removed: %v", err)
			}
			if cur, err := c.Store().Current(ctx, shopDev); err != nil || cur.ID != "rel_42" {
				t.Errorf("current = %q, %v", cur.ID, err)
			}
		})
	}
}

// Prune removes both forms of a release's file.
func TestPruneRemovesBothForms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	packedFile := filepath.Join(dir, "releases/shop/rel_41.json.zst")
	writeFile(t, packedFile, packBytes(t, []byte(readFile(t, filepath.Join(dir, "releases/shop/rel_41.json")))))
	c := openCache(t, dir)
	if _, err := c.Prune(ctx, "shop", "dev", 1); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, filepath.Join(dir, "releases/shop")), []string{"dev.current", "rel_42.json"}; !slices.Equal(got, want) {
		t.Errorf("files after prune = %v, want %v", got, want)
	}
}

// An import that fails after its file turned compressed leaves nothing
// behind: neither temp file, nor a release file, and the index as it was.
func TestFailedImportAfterTheSwitchLeavesNothing(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(mediumDoc(t), &doc); err != nil {
		t.Fatal(err)
	}
	tables := doc["tables"].([]any)
	doc["tables"] = append(tables, tables[0]) // a duplicate, found at the end
	bad, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	setPackThreshold(t, 1000)
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	before := tree(t, dir)
	file := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, file, bad)
	_, err = Import(context.Background(), dir, file, nil, testLog(t))
	if _, invalid := errors.AsType[*snapshot.Error](err); !invalid {
		t.Fatalf("import of a document with a duplicate table: %v, want invalid", err)
	}
	if leftovers := temps(t, dir); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
	assertTree(t, dir, before)
}

// Compressed release files are the truth as plain ones are: `snapshot use`
// switches between them, and an index deleted is rebuilt from them.
func TestCompressedReleasesUseAndRebuild(t *testing.T) {
	setPackThreshold(t, 1000)
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, commented(t, "rel_42", 42, "in rel_42"))
	if got, want := names(t, filepath.Join(dir, "releases/shop")), []string{"dev.current", "rel_41.json.zst", "rel_42.json.zst"}; !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	c := openCache(t, dir)
	if _, err := c.Use(ctx, "shop", "dev", "rel_41"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got := postsComment(t, dir); got != "Blog posts" {
		t.Errorf("after use rel_41: comment %q", got)
	}

	removeIndex(t, dir)
	c = openCache(t, dir)
	list, err := c.Releases(ctx, "shop")
	if err != nil || len(list) != 2 {
		t.Fatalf("rebuilt index lists %+v, %v; want rel_41 and rel_42", list, err)
	}
	if cur, err := c.Store().Current(ctx, shopDev); err != nil || cur.ID != "rel_41" {
		t.Errorf("current after the rebuild = %q, %v; want rel_41", cur.ID, err)
	}
	c.Close()
	wantIndexed(t, dir, "rel_42.json.zst", fileSize(t, filepath.Join(dir, "releases/shop/rel_42.json.zst")))
}

// A sync of a release over the threshold writes it compressed; the next
// sync of the same release finds it cached.
func TestSyncWritesALargeReleaseCompressed(t *testing.T) {
	setPackThreshold(t, 1000)
	h := newHub(t)
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	dir := filepath.Join(t.TempDir(), "cache")
	if _, err := syncShop(t, h, dir, ""); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, filepath.Join(dir, "releases/shop")), []string{"dev.current", "rel_42.json.zst"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	if leftovers := temps(t, dir); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
	res, err := syncShop(t, h, dir, "")
	if err != nil || !res.Unchanged {
		t.Errorf("second sync = %+v, %v; want unchanged", res, err)
	}
}
