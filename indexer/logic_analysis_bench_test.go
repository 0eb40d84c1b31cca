package indexer

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

// BenchmarkImportAnalysis measures the import of the big release
// (storetest.Large: 10,000 tables, 2,000 postgres logics) into an empty
// cache, as Import does it, with the logics analysed in the release's
// transaction ("analysed") and without ("pending", as serve indexes it):
// the difference is what the analysis adds to an import. The parser is
// compiled before the timing starts (its first-parse cost is
// BenchmarkParserFirstUse's).
func BenchmarkImportAnalysis(b *testing.B) {
	ctx := context.Background()
	data := bigDoc(b)
	for _, mode := range []struct {
		name    string
		noParse bool
	}{{"pending", true}, {"analysed", false}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				c, err := OpenWith(ctx, b.TempDir(), nil, OpenOptions{NoParse: mode.noParse})
				if err != nil {
					b.Fatal(err)
				}
				if !mode.noParse {
					if err := c.logics.analyzer.Prepare(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				err = c.write(ctx, func() error {
					_, err := c.importLocked(ctx, bytes.NewReader(data), "")
					return err
				})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkParserFirstUse measures what the first release with postgres
// logics pays in a process: loading the parser's compilation from
// {cache}/parser ("cached") or compiling it ("compile").
func BenchmarkParserFirstUse(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	for _, mode := range []string{"compile", "cached"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				cache := dir
				if mode == "compile" {
					cache = b.TempDir()
				}
				a, err := analysis.New(ctx, analysis.Options{CacheDir: cache})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				if err := a.Prepare(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms")
				b.StopTimer()
				a.Close()
				b.StartTimer()
			}
		})
	}
}
