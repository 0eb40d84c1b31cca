package store_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// The benchmarks run on storetest.Large: 10,000 tables with about 160,000
// columns, 20,000 foreign keys and 2,000 logics.

var big = store.Target{Project: "big", Environment: "dev"}

func openBench(b *testing.B) *store.Store {
	b.Helper()
	s, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "index.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkPutRelease(b *testing.B) {
	snap := storetest.Release(storetest.Large)
	s := openBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		// Replaces the release after the first run, as a re-sync does.
		if err := s.PutRelease(ctx, snap, store.FileState{}, true, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(snap.Tables)*b.N)/b.Elapsed().Seconds(), "tables/s")
}

// openBig opens an index holding the large release as current. With
// optimize, it runs Store.Optimize afterwards as the indexer does, which
// gives SQLite's planner statistics.
func openBig(b *testing.B, optimize bool) *store.Store {
	b.Helper()
	s := openBench(b)
	ctx := context.Background()
	if err := s.PutRelease(ctx, storetest.Release(storetest.Large), store.FileState{}, true, nil); err != nil {
		b.Fatal(err)
	}
	if optimize {
		if err := s.Optimize(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkTable is one schema_get_table answer, composed by SQL, by bare
// name: billing_invoices, a base table that 17 foreign keys point at, and
// sales_orders_history, a table no key points at. "unoptimized" is the
// index right after PutRelease, before any ANALYZE statistics exist.
func BenchmarkTable(b *testing.B) {
	for _, optimize := range []bool{true, false} {
		name := "optimized"
		if !optimize {
			name = "unoptimized"
		}
		s := openBig(b, optimize)
		// A cancellable context, as a request's is.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for _, table := range []string{"billing_invoices", "sales_orders_history"} {
			b.Run(name+"/"+table, func(b *testing.B) {
				// callgrind counts by thread: kept on one, the loop can be
				// counted whole (docs/benchmarks.md).
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ReportAllocs()
				for b.Loop() {
					js, err := s.TableJSON(ctx, big, "", table)
					if err != nil {
						b.Fatal(err)
					}
					if len(js) < 200 {
						b.Fatalf("%s: %s", table, js)
					}
				}
			})
		}
	}
}

// BenchmarkTables is the first page of schema_list_tables (500 tables).
func BenchmarkTables(b *testing.B) {
	s := openBig(b, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.TablesPage(ctx, big, "", store.PageRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogic is one logic_get answer.
func BenchmarkLogic(b *testing.B) {
	s := openBig(b, true)
	name := storetest.Release(storetest.Large).Logics[1000].Name
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.LogicJSON(ctx, big, name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch is schema_search over the large release: a rare query
// (one table), a word in every table (id), a prefix, a word in thousands
// of column comments, a Korean word and a query that matches nothing.
func BenchmarkSearch(b *testing.B) {
	s := openBig(b, true)
	ctx := context.Background()
	for _, bc := range []struct {
		name, query string
		min         int // hits expected at least
	}{
		{"rare", "procurement vendors archive", 1},
		{"common-id", "id", 20},
		{"prefix", "procur", 20},
		{"comment-word", "minor units", 20},
		{"korean", "고객", 20},
		{"nothing", "zebra", 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.Search(ctx, big, store.SearchQuery{Text: bc.query})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Hits) < bc.min {
					b.Fatalf("%q: %d hits, want at least %d", bc.query, len(res.Hits), bc.min)
				}
			}
		})
	}
}
