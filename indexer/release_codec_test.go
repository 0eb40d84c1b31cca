package indexer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// zstdMagic begins every zstd frame (RFC 8878).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// A release file is written compressed, as {id}.json.zst, and holds the
// release document: the file's recorded size and digest are those of the
// bytes on disk.
func TestReleaseFileIsCompressed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	doc := shopDoc(t, "rel_42", 42, nil)
	importDoc(t, dir, doc)
	folder := filepath.Join(dir, "releases/shop")
	if got, want := names(t, folder), []string{"dev.current", "rel_42.json.zst"}; !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	path := filepath.Join(folder, "rel_42.json.zst")
	raw := readFile(t, path)
	if !strings.HasPrefix(raw, string(zstdMagic)) {
		t.Errorf("the release file does not begin with zstd's magic number: % x", raw[:min(8, len(raw))])
	}
	got, err := snapshot.Decode([]byte(readRelease(t, path)))
	if err != nil {
		t.Fatalf("the release file does not decode: %v", err)
	}
	if got.Release.ID != "rel_42" || len(got.Tables) == 0 {
		t.Errorf("release file holds %s with %d tables", got.Release.ID, len(got.Tables))
	}
	c := openCache(t, dir)
	files, err := c.Store().IndexedFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	file := files[store.ReleaseKey{Project: "shop", ID: "rel_42"}]
	if want := tree(t, dir)["releases/shop/rel_42.json.zst"]; file.Size != int64(len(raw)) || file.Digest != "sha256:"+want {
		t.Errorf("indexed file = %d bytes, %s; want %d bytes, sha256:%s", file.Size, file.Digest, len(raw), want)
	}
	if n := len(readRelease(t, path)); int64(n) <= file.Size {
		t.Errorf("a release file of %d bytes holds %d bytes of JSON: not compressed", file.Size, n)
	}
}

// A plain {id}.json, as an older hubsnap wrote it or as a person drops it
// in, is indexed as it is and never rewritten; writing the release again
// replaces it with the compressed file, in the same change.
func TestPlainReleaseFileIsReadThenReplaced(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	putFile(t, dir, "shop", "rel_41.json", shopDoc(t, "rel_41", 41, nil))
	putFile(t, dir, "shop", "dev.current", []byte("rel_41\n"))
	before := readFile(t, filepath.Join(dir, "releases/shop/rel_41.json"))
	c := openCache(t, dir)
	if cur, err := c.Store().Current(ctx, shopDev); err != nil || cur.ID != "rel_41" {
		t.Fatalf("current = %q, %v; want rel_41 from the plain file", cur.ID, err)
	}
	c.Close()
	if after := readFile(t, filepath.Join(dir, "releases/shop/rel_41.json")); after != before {
		t.Error("the plain release file was rewritten")
	}

	// The same release again, changed: one file, compressed.
	importDoc(t, dir, shopDoc(t, "rel_41", 41, func(doc map[string]any) {
		for _, tbl := range doc["tables"].([]any) {
			if tbl := tbl.(map[string]any); tbl["name"] == "posts" {
				tbl["comment"] = "imported again"
			}
		}
	}))
	if got, want := names(t, filepath.Join(dir, "releases/shop")), []string{"dev.current", "rel_41.json.zst"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	c = openCache(t, dir)
	if tbl, err := readTable(t, c.Store(), shopDev, "", "posts"); err != nil || tbl.Comment != "imported again" {
		t.Errorf("posts = %+v, %v; want the comment imported again", tbl, err)
	}
}

// With both forms of one release there, the one modified last is the
// release file; the cheap check agrees with the reconcile, so an
// unchanged cache is not reconciled again.
func TestBothFormsTheNewerWins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	plain := filepath.Join(dir, "releases/shop/rel_42.json")
	packedFile := filepath.Join(dir, "releases/shop/rel_42.json.zst")
	edited := strings.Replace(readRelease(t, packedFile), "Blog posts", "From the plain file", 1)
	writeFile(t, plain, []byte(edited))
	later := time.Now().Add(time.Minute)
	os.Chtimes(plain, later, later)

	comment := func() string {
		t.Helper()
		c := openCache(t, dir)
		defer c.Close()
		if stale, err := c.stale(ctx); err != nil || stale {
			t.Errorf("after the open's reconcile: stale %v, %v; want the cheap check to agree", stale, err)
		}
		tbl, err := readTable(t, c.Store(), shopDev, "", "posts")
		if err != nil {
			t.Fatal(err)
		}
		return tbl.Comment
	}
	if got := comment(); got != "From the plain file" {
		t.Errorf("with the plain file newer: comment %q", got)
	}
	evenLater := later.Add(time.Minute)
	os.Chtimes(packedFile, evenLater, evenLater)
	if got := comment(); got != "Blog posts" {
		t.Errorf("with the compressed file newer: comment %q", got)
	}
	// A tie goes to the plain file.
	os.Chtimes(plain, evenLater, evenLater)
	if got := comment(); got != "From the plain file" {
		t.Errorf("with both of one time: comment %q", got)
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
	plain := filepath.Join(dir, "releases/shop/rel_41.json")
	writeFile(t, plain, []byte(readRelease(t, filepath.Join(dir, "releases/shop/rel_41.json.zst"))))
	c := openCache(t, dir)
	if _, err := c.Prune(ctx, "shop", "dev", 1); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, filepath.Join(dir, "releases/shop")), []string{"dev.current", "rel_42.json.zst"}; !slices.Equal(got, want) {
		t.Errorf("files after prune = %v, want %v", got, want)
	}
}

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
