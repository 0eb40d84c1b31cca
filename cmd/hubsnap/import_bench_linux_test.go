//go:build linux

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/store/storetest"
)

// BenchmarkImportRSS runs the real `hubsnap snapshot import FILE` as a
// child on a release of 10,000, 50,000 and 100,000 tables written by
// storetest.WriteRelease, each time into an empty cache, and reports the
// child's peak resident set ("peak-rss-MiB", getrusage's ru_maxrss), the
// document's size ("json-MiB") and the target, 2 × the JSON size +
// 64 MiB ("target-MiB"). The time per iteration is the whole command:
// start, stream, index, merge the search index, make it current, exit.
// The child is the test binary re-executed as hubsnap, a little larger
// than a real build.
func BenchmarkImportRSS(b *testing.B) {
	sizes := []struct {
		name string
		size storetest.Size
	}{{"10k", storetest.Large}, {"50k", storetest.Size{Tables: 50_000, Logics: 10_000}}, {"100k", storetest.Huge}}
	for _, bs := range sizes {
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
			st, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			jsonMiB := float64(st.Size()) / (1 << 20)
			var peak float64
			for b.Loop() {
				b.StopTimer()
				c := newCLI(b).with("HUBSNAP_PROJECT", "big", "HUBSNAP_ENVIRONMENT", "dev")
				cmd := hubsnapCmd(b, c, "snapshot", "import", file)
				b.StartTimer()
				start := time.Now()
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("snapshot import: %v\n%s", err, out)
				}
				b.StopTimer()
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peak = max(peak, float64(ru.Maxrss)/1024) // KiB on Linux
				}
				b.Logf("%s: %d bytes of JSON imported in %v", bs.name, st.Size(), time.Since(start).Round(time.Millisecond))
				b.StartTimer()
			}
			b.ReportMetric(peak, "peak-rss-MiB")
			b.ReportMetric(jsonMiB, "json-MiB")
			b.ReportMetric(2*jsonMiB+64, "target-MiB")
		})
	}
}
