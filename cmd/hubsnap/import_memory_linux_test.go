//go:build linux && !race

// Not under the race detector, whose shadow memory multiplies a process's
// resident set; .ci/run's scale step runs this without it.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// importMemoryBytes is the size of each release TestImportMemory imports:
// big enough that twice it outweighs the 64 MiB allowance, small enough
// for seven imports in a few minutes of CI. At 200 MiB, the size of the
// releases of issue 23, the figures are in docs/benchmarks.md.
const importMemoryBytes = 128 << 20

// TestImportMemory runs the real `hubsnap snapshot import FILE` as a child
// on a 128 MiB release of each shape of storetest.WriteShape (many small
// tables; 4,096-column tables; logics of 47 KiB of SQL; 256 foreign keys
// a table; 16 KiB comments of millions of distinct words; 1,000-value
// enums; 1,024 indexes a table), each into an empty cache, and checks
// that the child's peak resident set (its VmHWM, peakFileEnv) stays under
// 2 × the JSON + 64 MiB, and that every table and logic was imported. A
// release with logics makes the child start one more, which compiles
// PostgreSQL's parser into the new cache (index_parser.go): a fixed cost,
// bounded on its own (compileLimitMiB).
func TestImportMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("imports seven 128 MiB releases")
	}
	for _, shape := range storetest.Shapes {
		t.Run(string(shape), func(t *testing.T) {
			t.Parallel() // two at a time on two cores: resident sets are each child's own
			file := filepath.Join(t.TempDir(), "release.json")
			f, err := os.Create(file)
			if err != nil {
				t.Fatal(err)
			}
			w, err := storetest.WriteShape(f, shape, importMemoryBytes)
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			// Its own compiled parser, not the tests' shared one: the
			// compile is measured too.
			c := newCLI(t).with("HUBSNAP_PROJECT", "big", "HUBSNAP_ENVIRONMENT", "dev",
				indexer.ParserDirEnv, filepath.Join(t.TempDir(), "parser"))
			peakFile := filepath.Join(t.TempDir(), "status")
			cmd := hubsnapCmd(t, c.with(peakFileEnv, peakFile), "snapshot", "import", file)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("snapshot import: %v\n%s", err, out)
			}
			took := time.Since(start)
			os.Remove(file)
			want := fmt.Sprintf("%d tables, %d logics", w.Tables, w.Logics)
			if !strings.Contains(string(out), want) {
				t.Errorf("snapshot import says %q, want %q", strings.TrimSpace(string(out)), want)
			}
			peaks := peakRSS(t, peakFile) // the import's own is the last: it ends last
			peak, children := peaks[len(peaks)-1], peaks[:len(peaks)-1]
			jsonMiB := float64(w.Bytes) / (1 << 20)
			limit := 2*jsonMiB + 64
			t.Logf("%s: %.0f MiB of JSON imported in %v, peak RSS %.0f MiB (limit %.0f MiB); the parser's compile: %.0f MiB",
				shape, jsonMiB, took.Round(100*time.Millisecond), peak, limit, children)
			if peak > limit {
				t.Errorf("%s: peak RSS %.0f MiB, want at most 2 × %.0f MiB of JSON + 64 MiB = %.0f MiB", shape, peak, jsonMiB, limit)
			}
			if w.Logics > 0 && len(children) != 1 {
				t.Errorf("%s: %d children compiled PostgreSQL's parser, want 1 (index_parser.go)", shape, len(children))
			}
			for _, c := range children {
				if c > compileLimitMiB {
					t.Errorf("%s: the parser's compile peaked at %.0f MiB, want at most %d MiB", shape, c, compileLimitMiB)
				}
			}
		})
	}
}

// compileLimitMiB bounds the child that compiles PostgreSQL's parser, once
// per cache (index_parser.go): a fixed cost, whatever the release's size,
// measured at 290-295 MiB on the benchmark machine (docs/benchmarks.md).
const compileLimitMiB = 384

// peakRSS reads, in MiB, the peak resident set of each process that
// appended it to file (peakFileEnv): the VmHWM lines of their
// /proc/self/status, in the order they ended.
func peakRSS(t *testing.T, file string) []float64 {
	t.Helper()
	status, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the child's peak resident set: %v", err)
	}
	var peaks []float64
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kib float64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%f kB", &kib); err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			peaks = append(peaks, kib/1024)
		}
	}
	if len(peaks) == 0 {
		t.Fatalf("no VmHWM in the child's status:\n%s", status)
	}
	return peaks
}
