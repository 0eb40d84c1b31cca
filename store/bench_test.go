package store_test

import (
	"context"
	"path/filepath"
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

// BenchmarkSearchIndexing is the part of BenchmarkPutRelease that builds
// the search index: replacing the release's search rows.
func BenchmarkSearchIndexing(b *testing.B) {
	snap := storetest.Release(storetest.Large)
	s := openBench(b)
	ctx := context.Background()
	if err := s.PutRelease(ctx, snap, store.FileState{}, true, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.PutSearchRows(ctx, snap.Release.Project, snap.Release.ID, snap); err != nil {
			b.Fatal(err)
		}
	}
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

// BenchmarkTable is one schema_get_table lookup by bare name: the table, its
// columns, keys, indexes and the keys pointing at it. "unoptimized" is the
// index right after PutRelease, before any ANALYZE statistics exist.
func BenchmarkTable(b *testing.B) {
	for _, optimize := range []bool{true, false} {
		name := "optimized"
		if !optimize {
			name = "unoptimized"
		}
		b.Run(name, func(b *testing.B) {
			s := openBig(b, optimize)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				// A base table: other tables' keys point at it.
				t, err := s.Table(ctx, big, "", "billing_invoices")
				if err != nil {
					b.Fatal(err)
				}
				if len(t.Columns) < 10 || len(t.ReferencedBy) == 0 {
					b.Fatalf("billing_invoices: %d columns, %d references", len(t.Columns), len(t.ReferencedBy))
				}
			}
		})
	}
}

// BenchmarkTables lists every table of the release (schema_list_tables).
func BenchmarkTables(b *testing.B) {
	s := openBig(b, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tables, err := s.Tables(ctx, big, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(tables) != storetest.Large.Tables {
			b.Fatalf("%d tables, want %d", len(tables), storetest.Large.Tables)
		}
	}
}

// BenchmarkLogic is one logic_get lookup with its params.
func BenchmarkLogic(b *testing.B) {
	s := openBig(b, true)
	name := storetest.Release(storetest.Large).Logics[1000].Name
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Logic(ctx, big, name); err != nil {
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
