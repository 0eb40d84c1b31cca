package indexer

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// setPackThreshold makes release files whose document is over n bytes be
// written compressed, for the rest of the test (packAbove). Not for a
// parallel test.
func setPackThreshold(tb testing.TB, n int64) {
	tb.Helper()
	was := packAbove
	packAbove = n
	tb.Cleanup(func() { packAbove = was })
}

// packBytes compresses data as hubsnap compresses a release file.
func packBytes(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw, err := newPacker(&b)
	if err == nil {
		_, err = zw.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// mediumDoc returns a release of storetest's shape, project big, id
// rel_big, 200 tables: about 380 KB, which the encoder writes to the
// release file in several pieces.
func mediumDoc(tb testing.TB) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := storetest.WriteRelease(&b, storetest.Size{Tables: 200, Logics: 20}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// A release file of at most packThreshold bytes is written plain, as
// {id}.json (SPEC §6); its recorded size and digest are its bytes'.
func TestSmallReleaseFileIsPlain(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	folder := filepath.Join(dir, "releases/shop")
	if got, want := names(t, folder), []string{"dev.current", "rel_42.json"}; !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	raw := readFile(t, filepath.Join(folder, "rel_42.json"))
	if _, err := snapshot.Decode([]byte(raw)); err != nil {
		t.Fatalf("the plain release file does not decode: %v", err)
	}
	wantIndexed(t, dir, "rel_42.json", int64(len(raw)))
}

// A release file over the threshold is written compressed, as
// {id}.json.zst, and holds the release document: the file's recorded size
// and digest are those of the bytes on disk.
func TestLargeReleaseFileIsCompressed(t *testing.T) {
	setPackThreshold(t, 1000)
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	folder := filepath.Join(dir, "releases/shop")
	if got, want := names(t, folder), []string{"dev.current", "rel_42.json.zst"}; !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	path := filepath.Join(folder, "rel_42.json.zst")
	raw := readFile(t, path)
	if !strings.HasPrefix(raw, string(zstdMagic)) {
		t.Errorf("the release file does not begin with zstd's magic number: % x", raw[:min(8, len(raw))])
	}
	doc := readRelease(t, path)
	got, err := snapshot.Decode([]byte(doc))
	if err != nil {
		t.Fatalf("the release file does not decode: %v", err)
	}
	if got.Release.ID != "rel_42" || len(got.Tables) == 0 {
		t.Errorf("release file holds %s with %d tables", got.Release.ID, len(got.Tables))
	}
	wantIndexed(t, dir, "rel_42.json.zst", int64(len(raw)))
	if len(doc) <= len(raw) {
		t.Errorf("a release file of %d bytes holds %d bytes of JSON: not compressed", len(raw), len(doc))
	}
}

// wantIndexed checks that the index records shop's release file name
// with its size and digest.
func wantIndexed(tb testing.TB, dir, name string, size int64) {
	tb.Helper()
	c := openCache(tb, dir)
	defer c.Close()
	files, err := c.Store().IndexedFiles(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := releaseID(name)
	file := files[store.ReleaseKey{Project: "shop", ID: id}]
	if want := tree(tb, dir)["releases/shop/"+name]; file.Size != size || file.Digest != "sha256:"+want {
		tb.Errorf("indexed file = %d bytes, %s; want %d bytes, sha256:%s", file.Size, file.Digest, size, want)
	}
}

// syncedAt matches the time of an import in a release file, which differs
// from one import to the next.
var syncedAt = regexp.MustCompile(`"syncedAt":"[^"]*"`)

// The writer switches form as the document passes the threshold: a
// document of exactly the threshold stays plain; one byte over, or
// passing it early or midway, the file is compressed and holds the same
// bytes the plain file would, the part written before the switch
// included. No temp file is left either way.
func TestPackThresholdSwitchesMidway(t *testing.T) {
	doc := mediumDoc(t)
	write := func(threshold int64) (name, content string, size int64) {
		t.Helper()
		setPackThreshold(t, threshold)
		dir := t.TempDir()
		importDoc(t, dir, doc)
		if leftovers := temps(t, dir); len(leftovers) > 0 {
			t.Errorf("threshold %d: temp files left: %v", threshold, leftovers)
		}
		got := names(t, filepath.Join(dir, "releases/big"))
		if len(got) != 2 {
			t.Fatalf("threshold %d: files = %v, want dev.current and one release file", threshold, got)
		}
		path := filepath.Join(dir, "releases/big", got[1])
		content = readRelease(t, path)
		return got[1], syncedAt.ReplaceAllString(content, ""), int64(len(content))
	}
	name, plain, size := write(packThreshold)
	if name != "rel_big.json" {
		t.Fatalf("under the threshold: %s, want rel_big.json", name)
	}
	for _, tc := range []struct {
		threshold int64
		want      string
	}{
		{size, "rel_big.json"},
		{size - 1, "rel_big.json.zst"},
		{size / 2, "rel_big.json.zst"},
		{1, "rel_big.json.zst"},
	} {
		name, content, _ := write(tc.threshold)
		if name != tc.want {
			t.Errorf("threshold %d of a %d-byte document: %s, want %s", tc.threshold, size, name, tc.want)
		}
		if content != plain {
			t.Errorf("threshold %d: the file holds %d bytes of document, want the %d of the plain file", tc.threshold, len(content), len(plain))
		}
	}
}
