package indexer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/store/storetest"
)

// importFiles are the snapshot documents of the import benchmarks, each
// written once per process by storetest.WriteRelease (the generator of
// docs/benchmarks.md's "100,000 tables on a laptop"): 10,000 tables are
// 18.7 MB of JSON, 100,000 are 189 MB.
var importFiles = struct {
	sync.Mutex
	dir   string
	paths map[int]string
}{paths: map[int]string{}}

// importFile returns the path of a document of tables tables and a fifth
// as many logics, writing it the first time. The files are removed when
// the benchmarks end (TestMain).
func importFile(tb testing.TB, tables int) string {
	tb.Helper()
	importFiles.Lock()
	defer importFiles.Unlock()
	if p, ok := importFiles.paths[tables]; ok {
		return p
	}
	if importFiles.dir == "" {
		dir, err := os.MkdirTemp("", "hubsnap-import-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		importFiles.dir = dir
	}
	p := filepath.Join(importFiles.dir, fmt.Sprintf("release-%d.json", tables))
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := storetest.WriteRelease(f, storetest.Size{Tables: tables, Logics: tables / 5}); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	importFiles.paths[tables] = p
	return p
}

// benchSizes are the numbers of tables of the import benchmarks:
// HUBSNAP_BENCH_TABLES (comma-separated) or 10,000 and 100,000.
func benchSizes(tb testing.TB) []int {
	s := os.Getenv("HUBSNAP_BENCH_TABLES")
	if s == "" {
		return []int{10_000, 100_000}
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n <= 0 {
			tb.Fatalf("HUBSNAP_BENCH_TABLES: %q is not a number of tables", f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// removeImportFiles removes what importFile wrote.
func removeImportFiles() {
	importFiles.Lock()
	defer importFiles.Unlock()
	if importFiles.dir != "" {
		os.RemoveAll(importFiles.dir)
	}
}

// BenchmarkImportCurve imports documents of 10,000 and 100,000 tables
// (storetest.WriteRelease, a fifth as many postgres logics, analysed)
// into an empty cache each time, as `snapshot import` does, in the same
// process and run, so that their ratio is the import's growth. It reports
// the process's CPU time per import (cpu-ns/op: both cores, the pipeline
// included), and, when node is installed, node's JSON.parse of the same
// file (node-parse-ms, the fastest of three, reading excluded) and the
// import's wall time as a multiple of it (x-node). The
// parser is compiled before the timing (its first use is
// BenchmarkParserFirstUse's). HUBSNAP_BENCH_TABLES=10000,50000 picks other
// sizes.
func BenchmarkImportCurve(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			file := importFile(b, n)
			st, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			nodeMs := nodeParse(b, file)
			var cpu, wall time.Duration
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				c, err := Open(ctx, dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := c.logics.analyzer.Prepare(ctx); err != nil {
					b.Fatal(err)
				}
				c.Close()
				b.StartTimer()
				cpu0, start := storetest.CPUTime(), time.Now()
				if _, err := Import(ctx, dir, file, nil, nil); err != nil {
					b.Fatal(err)
				}
				cpu, wall = cpu+storetest.CPUTime()-cpu0, wall+time.Since(start)
				b.StopTimer()
				os.RemoveAll(dir) // a 100,000-table cache is 700 MB
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			if nodeMs > 0 {
				b.ReportMetric(nodeMs, "node-parse-ms")
				b.ReportMetric(float64(wall.Milliseconds())/float64(b.N)/nodeMs, "x-node")
			}
		})
	}
}

// nodeParse runs node's JSON.parse on file, reading the file first, and
// returns the fastest of three parses in milliseconds: the floor issue 27
// compares the import with. Without node it returns 0 and says so once.
func nodeParse(tb testing.TB, file string) float64 {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		tb.Log("node is not installed: no JSON.parse comparison")
		return 0
	}
	script := `const fs = require("fs"); const text = fs.readFileSync(process.argv[1], "utf8"); let best = Infinity;
for (let i = 0; i < 3; i++) { const t = process.hrtime.bigint(); JSON.parse(text); best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6); }
console.log(best);`
	out, err := exec.Command(node, "--max-old-space-size=4096", "-e", script, file).Output()
	if err != nil {
		tb.Fatalf("node JSON.parse: %v", err)
	}
	var ms float64
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &ms); err != nil {
		tb.Fatalf("node JSON.parse: %q: %v", out, err)
	}
	return ms
}

// TestMain removes the benchmarks' documents once the package's tests and
// benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	removeImportFiles()
	os.Exit(code)
}
