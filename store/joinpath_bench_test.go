package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/store"
)

// BenchmarkJoinPath is one schema_join_path search on storetest.Large,
// with the default maxHops and limit, timing each call and reporting the
// median and 99th percentile ("p50-ms", "p99-ms"):
//
//   - hubs: billing_invoices to billing_orders, base tables that dozens of
//     keys point at, two joins apart through billing_users and
//     billing_accounts, which every base table of the area points at;
//   - leaves: billing_orders_notes to billing_invoices_stats, tables no key
//     points at, four joins apart through those hubs;
//   - none: billing_users to sales_users, in areas no key joins: the whole
//     neighbourhood is searched for nothing.
func BenchmarkJoinPath(b *testing.B) {
	s := openBig(b, true)
	ctx := context.Background()
	for _, bc := range []struct {
		name, from, to string
		paths          int
	}{
		{"hubs", "billing_invoices", "billing_orders", 3},
		{"leaves", "billing_orders_notes", "billing_invoices_stats", 3},
		{"none", "billing_users", "sales_users", 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := store.JoinPathRequest{From: bc.from, To: bc.to}
			got, err := s.JoinPaths(ctx, big, req)
			if err != nil {
				b.Fatal(err)
			}
			if len(got.Paths) != bc.paths {
				b.Fatalf("%d paths, want %d: %+v", len(got.Paths), bc.paths, got)
			}
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				if _, err := s.JoinPaths(ctx, big, req); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(quantileMS(times, 0.50), "p50-ms")
			b.ReportMetric(quantileMS(times, 0.99), "p99-ms")
		})
	}
}

// quantileMS is the q-quantile of sorted durations, in milliseconds
// (nearest rank).
func quantileMS(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(max(int(q*float64(len(sorted))+0.999999)-1, 0), len(sorted)-1)
	return float64(sorted[i]) / float64(time.Millisecond)
}
