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

// BenchmarkJoinPathHubs is one schema_join_path search on hubRelease
// (joinpath_hub_test.go), timing each call as BenchmarkJoinPath does:
//
//   - tenants-users: two hubs that about 8,000 tables each point at
//     both of, 2 joins apart through each of them;
//   - x-x: two of those tables, 2 joins apart through each hub, then
//     4 through a hub, a third table and the other hub;
//   - star: two leaves of a star of 3,000, 2 joins apart.
func BenchmarkJoinPathHubs(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	if err := s.PutRelease(ctx, hubRelease(), store.FileState{}, true, nil); err != nil {
		b.Fatal(err)
	}
	if err := s.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	hubs := store.Target{Project: "hubs", Environment: "dev"}
	for _, bc := range []struct {
		name, from, to string
		paths          int
	}{
		{"tenants-users", "tenants", "users", 3},
		{"x-x", "x_00001", "x_00002", 3},
		{"star", "s_0001", "s_0002", 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := store.JoinPathRequest{From: bc.from, To: bc.to}
			got, err := s.JoinPaths(ctx, hubs, req)
			if err != nil {
				b.Fatal(err)
			}
			if len(got.Paths) != bc.paths {
				b.Logf("%d paths, want %d (truncated %v)", len(got.Paths), bc.paths, got.Truncated)
			}
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				if _, err := s.JoinPaths(ctx, hubs, req); err != nil {
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

// BenchmarkJoinPathLinks is one schema_join_path search on linkRelease
// (joinpath_link_test.go), issue 36's hubs of 10,000 referrers each,
// timing each call as BenchmarkJoinPath does:
//
//   - hubs-3: tenants to users, the first 3 of their 7 paths of 2 joins
//     (through a_link, r_02000_owner, r_05000_link);
//   - hubs-all: the same, limit 10 and maxHops 3: all 7, and no path of 3
//     joins (a meeting in the middle of the hubs' 20,000 neighbours);
//   - back-all: the same from users;
//   - hub-3: r_00001_a to teams, maxHops 3: the one path, 3 joins through
//     orgs, which 10,000 tables point at, and solo_link, sorted last;
//   - leaf-leaf: r_00001_a to r_00001_b, 4 joins apart through a hub, a
//     link and the other hub.
func BenchmarkJoinPathLinks(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	if err := s.PutRelease(ctx, linkRelease(), store.FileState{}, true, nil); err != nil {
		b.Fatal(err)
	}
	if err := s.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	links := store.Target{Project: "links", Environment: "dev"}
	for _, bc := range []struct {
		name string
		req  store.JoinPathRequest
	}{
		{"hubs-3", store.JoinPathRequest{From: "tenants", To: "users"}},
		{"hubs-all", store.JoinPathRequest{From: "tenants", To: "users", Limit: 10, MaxHops: 3}},
		{"back-all", store.JoinPathRequest{From: "users", To: "tenants", Limit: 10, MaxHops: 3}},
		{"hub-3", store.JoinPathRequest{From: "r_00001_a", To: "teams", MaxHops: 3}},
		{"leaf-leaf", store.JoinPathRequest{From: "r_00001_a", To: "r_00001_b"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			got, err := s.JoinPaths(ctx, links, bc.req)
			if err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				if _, err := s.JoinPaths(ctx, links, bc.req); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(len(got.Paths)), "paths")
			if got.Truncated {
				b.ReportMetric(1, "truncated")
			}
			b.ReportMetric(quantileMS(times, 0.50), "p50-ms")
			b.ReportMetric(quantileMS(times, 0.99), "p99-ms")
		})
	}
}
