package indexer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// BenchmarkCacheSize imports a release written by storetest.WriteRelease
// (10,000 and 100,000 tables) into an empty cache and reports what the
// cache then holds on disk: the release files ("release-MB"), the index
// with its log ("index-MB"), the document imported ("json-MB"), and the
// cache (release files + index) over the document ("cache/json"; issue 27
// asks for at most 2). The time per iteration is the import.
func BenchmarkCacheSize(b *testing.B) {
	for _, bs := range []struct {
		name string
		size storetest.Size
	}{{"10k", storetest.Large}, {"100k", storetest.Huge}} {
		b.Run(bs.name, func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "release.json")
			f, err := os.Create(file)
			if err != nil {
				b.Fatal(err)
			}
			if err := storetest.WriteRelease(f, bs.size); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
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
		})
	}
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
// alone, on storetest.Large (10,000 tables, 18.7 MB of JSON): the parts
// decoded from the document are written to a release file in a temp
// folder, hashed and fsynced, "zstd" as hubsnap writes it (release_file.go)
// and "plain" as it did before (the encoder straight into the file). The
// decoding is in both.
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
	b.Run("zstd", func(b *testing.B) {
		write(b, func(dir string) (*snapshot.Encoder, func() (int64, error)) {
			rf, err := newReleaseFile(dir)
			if err != nil {
				b.Fatal(err)
			}
			return rf.enc, func() (int64, error) {
				st, err := rf.finish(store.Origin{Source: store.SourceImport})
				rf.discard()
				return st.Size, err
			}
		})
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
				err := enc.Finish(snapshot.Origin{Source: store.SourceImport})
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
