package store_test

import (
	"context"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// BenchmarkDiff is one schema_diff answer between two releases of
// storetest.Large (10,000 tables, 2,000 logics each):
//
//   - identical: the same release under another id;
//   - one-percent: 100 tables changed (a column's nullability, every
//     100th table), the default limit of 100 entries;
//   - whole: the same, as `hubsnap snapshot diff` asks for it (no limit,
//     texts whole).
func BenchmarkDiff(b *testing.B) {
	ctx := context.Background()
	s := openBench(b)
	base := storetest.Release(storetest.Large)
	same := storetest.Release(storetest.Large)
	same.Release.ID, same.Release.Version = "rel_same", 2
	changed := storetest.Release(storetest.Large)
	changed.Release.ID, changed.Release.Version = "rel_changed", 3
	for i := 0; i < len(changed.Tables); i += 100 {
		c := &changed.Tables[i].Columns[len(changed.Tables[i].Columns)-1]
		c.Nullable = !c.Nullable
	}
	for _, snap := range []*snapshot.Snapshot{base, same, changed} {
		if err := s.PutRelease(ctx, snap, store.FileState{}, false, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		req  store.DiffRequest
	}{
		{"identical", store.DiffRequest{From: "rel_big", To: "rel_same", Tables: true, Logics: true}},
		{"one-percent", store.DiffRequest{From: "rel_big", To: "rel_changed", Tables: true, Logics: true}},
		{"whole", store.DiffRequest{From: "rel_big", To: "rel_changed", Tables: true, Logics: true, Whole: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				out, err := s.DiffJSON(ctx, big, bc.req)
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
