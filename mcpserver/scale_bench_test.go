package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// The Large benchmarks serve storetest.Large (10,000 tables, about 160,000
// columns, 20,000 foreign keys, 2,000 logics) as the current release of
// big/dev, through the go-sdk client and server over in-memory transports.
// The index is built once per test process, on the first test or
// benchmark that needs it (about 2 s), and removed by TestMain;
// `go test -short` never builds it. The answer budget tests also build
// storetest.Huge (100,000 tables, about half a minute) the same way.

// sharedIndex is an index of a synthetic release shared by the tests and
// benchmarks of the process.
type sharedIndex struct {
	once   sync.Once
	dir    string
	st     *store.Store
	tables []string // every table name, in release order
	logics []string // every logic name, in release order
	err    error
}

var large, huge sharedIndex

// largeStore returns the shared index holding storetest.Large as the
// current release of big/dev, indexed and optimized as the indexer leaves
// it. Tests and benchmarks must not close it.
func largeStore(tb testing.TB) *store.Store { return large.get(tb, storetest.Large) }

// hugeStore is largeStore for storetest.Huge.
func hugeStore(tb testing.TB) *store.Store { return huge.get(tb, storetest.Huge) }

func (x *sharedIndex) get(tb testing.TB, size storetest.Size) *store.Store {
	tb.Helper()
	x.once.Do(func() { x.err = x.build(size) })
	if x.err != nil {
		tb.Fatalf("build the index of %d tables: %v", size.Tables, x.err)
	}
	return x.st
}

func (x *sharedIndex) build(size storetest.Size) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hubsnap-mcpserver-bench-")
	if err != nil {
		return err
	}
	x.dir = dir
	st, err := store.Open(ctx, filepath.Join(dir, "index.db"))
	if err != nil {
		return err
	}
	x.st = st
	a, err := analysis.New(ctx, analysis.Options{CacheDir: filepath.Join(os.TempDir(), "hubsnap-analysis-test-wazero")})
	if err != nil {
		return err
	}
	defer a.Close()
	// Analysed, as `hubsnap snapshot sync` writes it.
	err = st.WriteRelease(ctx, store.WriteOptions{MakeCurrent: true, Analyzer: a}, func(w *store.ReleaseWriter) error {
		return storetest.Fill(w, size, lint.New().Table)
	})
	if err != nil {
		return err
	}
	if err := st.Optimize(ctx); err != nil {
		return err
	}
	x.tables, x.logics = storetest.Names(size)
	return nil
}

// TestMain removes the shared indexes, when a test or benchmark built them.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, x := range []*sharedIndex{&large, &huge} {
		if x.st != nil {
			x.st.Close()
		}
		if x.dir != "" {
			os.RemoveAll(x.dir)
		}
	}
	os.Exit(code)
}

// largeSession is a client session to a new server of big/dev over the
// shared index. The server and session end with the benchmark.
func largeSession(b *testing.B) *mcp.ClientSession {
	b.Helper()
	srv := New(largeStore(b), Options{Target: bigDev, Version: "bench"})
	b.Cleanup(srv.Shutdown)
	return connect(b, srv)
}

// callOK makes one tool call that must succeed.
func callOK(b *testing.B, cs *mcp.ClientSession, params *mcp.CallToolParams) *mcp.CallToolResult {
	b.Helper()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		b.Fatalf("%s(%s): %v", params.Name, short(params.Arguments), err)
	}
	if res.IsError {
		b.Fatalf("%s(%s): tool error %s", params.Name, short(params.Arguments), short(res.Content))
	}
	return res
}

// decodeText decodes the text block of a successful call into out.
func decodeText(b *testing.B, res *mcp.CallToolResult, out any) {
	b.Helper()
	if err := json.Unmarshal([]byte(text(b, res)), out); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLargeGetTableTool is one schema_get_table call for
// billing_invoices, a base table with 17 foreign keys pointing at it.
func BenchmarkLargeGetTableTool(b *testing.B) {
	cs := largeSession(b)
	params := &mcp.CallToolParams{Name: "schema_get_table", Arguments: map[string]any{"table": "billing_invoices"}}
	var t answer.Table
	decodeText(b, callOK(b, cs, params), &t)
	if len(t.Columns) < 10 || len(t.ReferencedBy) == 0 {
		b.Fatalf("billing_invoices: %d columns, %d references", len(t.Columns), len(t.ReferencedBy))
	}
	b.ReportAllocs()
	for b.Loop() {
		callOK(b, cs, params)
	}
}

// BenchmarkLargeListTablesTool is one schema_list_tables call on the
// 10,000-table release: the first page of the default 500 tables, and of
// 5,000 (the largest limit).
func BenchmarkLargeListTablesTool(b *testing.B) {
	cs := largeSession(b)
	for _, bc := range []struct {
		name string
		args map[string]any
		page int
	}{{"page500", map[string]any{}, 500}, {"page5000", map[string]any{"limit": 5000}, 5000}} {
		b.Run(bc.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "schema_list_tables", Arguments: bc.args}
			var out ListTablesOutput
			decodeText(b, callOK(b, cs, params), &out)
			if len(out.Tables) != bc.page || out.Total != storetest.Large.Tables || out.NextCursor == "" {
				b.Fatalf("%d tables of %d (cursor %q), want a page of %d of %d", len(out.Tables), out.Total, out.NextCursor, bc.page, storetest.Large.Tables)
			}
			b.ReportAllocs()
			for b.Loop() {
				callOK(b, cs, params)
			}
		})
	}
}

// BenchmarkLargeSearchTool is one schema_search call with the queries of
// store's BenchmarkSearch: a rare one (one exact table name) and a word of
// every table.
func BenchmarkLargeSearchTool(b *testing.B) {
	cs := largeSession(b)
	for _, bc := range []struct {
		name, query string
		min         int // hits expected at least
	}{
		{"rare", "procurement vendors archive", 1},
		{"common", "id", store.DefaultSearchLimit},
	} {
		b.Run(bc.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "schema_search", Arguments: map[string]any{"query": bc.query}}
			var out SearchOutput
			decodeText(b, callOK(b, cs, params), &out)
			if len(out.Hits) < bc.min {
				b.Fatalf("%q: %d hits, want at least %d", bc.query, len(out.Hits), bc.min)
			}
			b.ReportAllocs()
			for b.Loop() {
				callOK(b, cs, params)
			}
		})
	}
}

// searchMix is a fixed mix of realistic schema_search queries: rare names,
// words of every table, prefixes, Korean words, comment words, and one
// that matches nothing.
var searchMix = []string{
	"procurement vendors archive", // rare: one table
	"billing invoices lines",
	"crm tickets history",
	"id", // common: a column of every table
	"name",
	"status",
	"created",
	"created_at",
	"amount",
	"procur", // prefixes
	"inv",
	"subscr",
	"고객", // Korean: an area's tables, comments
	"회계 데이터",
	"표시 이름",
	"minor units", // comment words
	"soft delete",
	"upstream system",
	"admin console", // logic descriptions
	"zebra",         // nothing
}

// BenchmarkLargeSearchP99 cycles through searchMix, one schema_search
// call per iteration, timing each call, and reports the median and 99th
// percentile over every call made ("p50-ms", "p99-ms"). For a meaningful
// p99, run at least a few hundred iterations (e.g. -benchtime 400x).
func BenchmarkLargeSearchP99(b *testing.B) {
	cs := largeSession(b)
	params := make([]*mcp.CallToolParams, len(searchMix))
	for i, q := range searchMix {
		params[i] = &mcp.CallToolParams{Name: "schema_search", Arguments: map[string]any{"query": q}}
		callOK(b, cs, params[i]) // every query works, and is warm
	}
	var times []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		callOK(b, cs, params[i%len(params)])
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(msAt(times, 0.50), "p50-ms")
	b.ReportMetric(msAt(times, 0.99), "p99-ms")
}

// msAt is the q-quantile of sorted durations, in milliseconds (nearest
// rank).
func msAt(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	i = min(max(i, 0), len(sorted)-1)
	return float64(sorted[i]) / float64(time.Millisecond)
}

// toolMix returns the i-th call of a mix of typical calls over the large
// release: mostly schema_get_table over different tables, then
// schema_search, logic_get and release_info.
func toolMix(i int, tables, logics []string) *mcp.CallToolParams {
	switch i % 10 {
	case 0, 1, 2, 3, 4, 5:
		// A stride through the tables, so that 10,000 calls touch most.
		t := tables[(i*7919)%len(tables)]
		return &mcp.CallToolParams{Name: "schema_get_table", Arguments: map[string]any{"table": t}}
	case 6, 7:
		return &mcp.CallToolParams{Name: "schema_search", Arguments: map[string]any{"query": searchMix[(i/10)%len(searchMix)]}}
	case 8:
		return &mcp.CallToolParams{Name: "logic_get", Arguments: map[string]any{"name": logics[(i*31)%len(logics)]}}
	default:
		return &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}}
	}
}

// serverMemoryCalls is how many calls one iteration of
// BenchmarkServerMemory makes.
const serverMemoryCalls = 10_000

// BenchmarkServerMemory makes 10,000 tool calls (toolMix) per iteration
// through one session, then collects garbage and reports the Go heap in use
// and allocated ("heap-inuse-MiB", "heap-alloc-MiB"). The heap is this
// whole test process's: server, client session and the shared index's Go
// side. SQLite's own page cache is allocated outside the Go heap and does
// not show. One iteration (b.N = 1) is typical.
func BenchmarkServerMemory(b *testing.B) {
	cs := largeSession(b)
	tables, logics := large.tables, large.logics
	callOK(b, cs, toolMix(0, tables, logics))
	for b.Loop() {
		for i := range serverMemoryCalls {
			callOK(b, cs, toolMix(i, tables, logics))
		}
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(mib(ms.HeapInuse), "heap-inuse-MiB")
	b.ReportMetric(mib(ms.HeapAlloc), "heap-alloc-MiB")
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
