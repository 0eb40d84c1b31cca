package indexer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// BenchmarkCacheSize imports a release written by storetest.WriteRelease
// (10,000 and 100,000 tables) into an empty cache and reports what the
// cache then holds on disk: the release files ("release-MB"), the index
// with its log ("index-MB"), the document imported ("json-MB"), and the
// cache (release files + index) over the document ("cache/json"; issue 27
// asks for at most 2). The time per iteration is the import. Each size
// runs twice: "threshold", the release file as hubsnap writes it (both
// documents are over 16 MiB: compressed), and "plain", the threshold
// raised past the document, as every release file was written before
// compressed files (the index is the same in both).
func BenchmarkCacheSize(b *testing.B) {
	for _, bs := range []struct {
		name string
		size storetest.Size
	}{{"10k", storetest.Large}, {"100k", storetest.Huge}} {
		for _, form := range []string{"threshold", "plain"} {
			b.Run(bs.name+"/"+form, func(b *testing.B) {
				if form == "plain" {
					setPackThreshold(b, math.MaxInt64)
				}
				cacheSize(b, bs.size)
			})
		}
	}
}

// cacheSize is one run of BenchmarkCacheSize.
func cacheSize(b *testing.B, size storetest.Size) {
	if size.Logics != size.Tables/5 {
		b.Fatalf("%d tables and %d logics: importFile writes a fifth as many logics", size.Tables, size.Logics)
	}
	file := importFile(b, size.Tables)
	doc := fileSize(b, file)
	var release, index int64
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		release, index = cacheSizes(b, dir)
		b.StartTimer()
	}
	const mb = 1e6
	b.ReportMetric(float64(release)/mb, "release-MB")
	b.ReportMetric(float64(index)/mb, "index-MB")
	b.ReportMetric(float64(doc)/mb, "json-MB")
	b.ReportMetric(float64(release+index)/float64(doc), "cache/json")
}

// cacheSizes returns the bytes of the release files of the cache in dir,
// and of its index with its log.
func cacheSizes(tb testing.TB, dir string) (release, index int64) {
	tb.Helper()
	err := filepath.WalkDir(filepath.Join(dir, releasesDir), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(path, currentExt) {
			release += fileSize(tb, path)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range []string{"", "-wal"} {
		if _, err := os.Stat(filepath.Join(dir, indexFile+s)); err == nil {
			index += fileSize(tb, filepath.Join(dir, indexFile+s))
		}
	}
	return release, index
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	info, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return info.Size()
}

// BenchmarkReleaseFileWrite measures the release-file layer of an import
// alone, on storetest.Large (10,000 tables, 18.6 MB as a release file):
// the parts decoded from the document are written to a release file in a
// temp folder, hashed and fsynced. "threshold" is hubsnap's writer as it
// is (release_file.go): plain for the first 16 MiB, then the switch to
// zstd, which reads those 16 MiB back through the encoder; "zstd" is the
// same writer compressing from the first byte (the switch's cost is the
// difference); "plain" is the encoder straight into the file, as a release
// of at most 16 MiB is written. The decoding is in all three.
func BenchmarkReleaseFileWrite(b *testing.B) {
	data := bigDoc(b)
	write := func(b *testing.B, open func(dir string) (*snapshot.Encoder, func() (int64, error))) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var n int64
		for b.Loop() {
			dir := b.TempDir()
			enc, finish := open(dir)
			d := snapshot.NewDecoder(bytes.NewReader(data))
			for d.Next() {
				if err := enc.Encode(d.Part()); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.Err(); err != nil {
				b.Fatal(err)
			}
			d.Close()
			var err error
			if n, err = finish(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/1e6, "file-MB")
	}
	hubsnap := func(dir string) (*snapshot.Encoder, func() (int64, error)) {
		rf, err := newReleaseFile(dir)
		if err != nil {
			b.Fatal(err)
		}
		return rf.enc, func() (int64, error) {
			st, err := rf.finish(snapshot.Origin{Source: snapshot.SourceImport})
			rf.discard()
			return st.Size, err
		}
	}
	b.Run("threshold", func(b *testing.B) { write(b, hubsnap) })
	b.Run("zstd", func(b *testing.B) {
		setPackThreshold(b, 0)
		write(b, hubsnap)
	})
	b.Run("plain", func(b *testing.B) {
		write(b, func(dir string) (*snapshot.Encoder, func() (int64, error)) {
			f, err := os.Create(filepath.Join(dir, "release.json"))
			if err != nil {
				b.Fatal(err)
			}
			h := sha256.New()
			var n counter
			enc := snapshot.NewEncoder(io.MultiWriter(f, h, &n))
			return enc, func() (int64, error) {
				err := enc.Finish(snapshot.Origin{Source: snapshot.SourceImport})
				if err == nil {
					err = f.Sync()
				}
				f.Close()
				h.Sum(nil)
				return int64(n), err
			}
		})
	})
}
