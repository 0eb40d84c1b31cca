package indexer

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/hubsnap/hubsnap/indexer/hubtest"
)

// compress returns doc as one zstd stream, as `zstd FILE` writes it.
func compress(tb testing.TB, doc []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	zw.Write(doc)
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// A snapshot compressed with zstd (a cache's {id}.json.zst copied
// elsewhere, or `zstd FILE`) is imported as its document, from a file or
// from standard input: the same digest, so the plain document imported
// after it is the same release, unchanged.
func TestImportCompressed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	doc := shopDoc(t, "rel_42", 42, nil)
	file := filepath.Join(t.TempDir(), "rel_42.json.zst")
	writeFile(t, file, compress(t, doc))
	res, err := Import(ctx, dir, file, nil, testLog(t))
	if err != nil {
		t.Fatalf("import of a compressed file: %v", err)
	}
	if res.ID != "rel_42" || res.Tables != 6 || res.Digest != hubtest.Digest(doc) || res.Unchanged {
		t.Errorf("import of a compressed file = %+v, want rel_42, 6 tables, the document's digest %s", res.ReleaseInfo, hubtest.Digest(doc))
	}
	plain := filepath.Join(t.TempDir(), "rel_42.json")
	writeFile(t, plain, doc)
	if res, err := Import(ctx, dir, plain, nil, testLog(t)); err != nil || !res.Unchanged {
		t.Errorf("the plain document after the compressed one: unchanged = %v, %v; want true", res.Unchanged, err)
	}

	doc43 := shopDoc(t, "rel_43", 43, nil)
	res, err = Import(ctx, dir, "-", bytes.NewReader(compress(t, doc43)), testLog(t))
	if err != nil || res.ID != "rel_43" || res.Digest != hubtest.Digest(doc43) {
		t.Errorf("import of compressed standard input = %+v, %v", res.ReleaseInfo, err)
	}
}

// A compressed snapshot that is damaged, cut short, asks for too large a
// window or is too large once decompressed is refused with its name and the cause, and the cache is
// left exactly as it was.
func TestImportCompressedBad(t *testing.T) {
	// Not parallel: it lowers the limit of every import.
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "cache")
	root := filepath.Dir(dir)
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	before := tree(t, root)
	doc := shopDoc(t, "rel_42", 42, nil)
	packed := compress(t, doc)

	damaged := bytes.Clone(packed)
	damaged[len(damaged)/2] ^= 0x55
	cut := packed[:len(packed)*2/3]
	for name, data := range map[string][]byte{"damaged.json.zst": damaged, "cut.json.zst": cut} {
		file := filepath.Join(t.TempDir(), name)
		writeFile(t, file, data)
		_, err := Import(ctx, dir, file, nil, testLog(t))
		if err == nil || !strings.Contains(err.Error(), file+": decompress: ") {
			t.Errorf("import of %s = %v, want %q", name, err, file+": decompress: ...")
		}
	}

	// A frame whose header asks for a window of 16 MiB, over the 8 MiB a
	// release file may ask (RFC 8878 3.1.1.1.2: window log 10+14).
	var long bytes.Buffer
	zw, err := zstd.NewWriter(&long, zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(doc)
	zw.Close()
	if long.Bytes()[4]&(1<<5) != 0 {
		t.Fatal("the frame is a single segment: it has no window descriptor to change")
	}
	long.Bytes()[5] = 14 << 3
	file := filepath.Join(t.TempDir(), "long.json.zst")
	writeFile(t, file, long.Bytes())
	_, err = Import(ctx, dir, file, nil, testLog(t))
	if want := file + ": decompress: the zstd stream asks for a window over 8.0 MiB"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("import of a file with a 16 MiB window = %v, want %q", err, want)
	}

	defer func(old int64) { maxImportSize = old }(maxImportSize)
	maxImportSize = int64(len(doc)) - 1
	file = filepath.Join(t.TempDir(), "big.json.zst")
	writeFile(t, file, packed)
	_, err = Import(ctx, dir, file, nil, testLog(t))
	if _, ok := errors.AsType[*tooLargeError](err); !ok || !strings.Contains(err.Error(), file+" once decompressed: over the ") {
		t.Errorf("import of a file over the limit once decompressed: %v", err)
	}
	assertTree(t, root, before)
}
