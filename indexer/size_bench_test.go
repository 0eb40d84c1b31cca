package indexer

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
