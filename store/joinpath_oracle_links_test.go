package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// linkGraph is a random release shaped like issue 36's, with referrers
// tables pointing at hubs: four hubs, two of them pointed at by about 45%
// of the referrers each (5,400 of 12,000: more than the walk of the old
// search could page through, and than the search looks up one by one,
// so their 2-join paths come from a merge), never by the same ones; two
// by about 5%, and 10% more that also point at one of the big two; link
// tables with keys to
// two or three hubs, in every orientation (a hub's own key to a link
// too), parallel and composite keys, keys between referrers, and the keys
// that are no edges (to itself, to a table not in the release, into
// another connection). Names are random, so links sort anywhere among
// the referrers.
func linkGraph(seed uint64, referrers int) *snapshot.Snapshot {
	rng := rand.New(rand.NewPCG(seed, 36))
	used := map[string]bool{}
	name := func(prefix string) string {
		for {
			var sb strings.Builder
			sb.WriteString(prefix)
			for range 6 {
				sb.WriteByte(byte('a' + rng.IntN(26)))
			}
			if n := sb.String(); !used[n] {
				used[n] = true
				return n
			}
		}
	}
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: fmt.Sprintf("rel_%d", seed), Project: "linkgraph", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:00Z"},
	}
	table := func(n string) *snapshot.Table {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: n, Connection: "main",
			Columns: []snapshot.Column{{Name: "id", Type: "int"}, {Name: "k", Type: "int"}}, PrimaryKey: []string{"id"}})
		return &snap.Tables[len(snap.Tables)-1]
	}
	key := func(t *snapshot.Table, ref string, composite bool) {
		col := fmt.Sprintf("c%d", len(t.Columns))
		t.Columns = append(t.Columns, snapshot.Column{Name: col, Type: "int"})
		fk := snapshot.ForeignKey{Columns: []string{col}, RefTable: ref, RefColumns: []string{"id"}}
		if composite {
			fk.Columns, fk.RefColumns = append(fk.Columns, "k"), append(fk.RefColumns, "k")
		}
		t.ForeignKeys = append(t.ForeignKeys, fk)
	}
	hubs := []string{name("h"), name("h"), name("m"), name("t")}
	for _, h := range hubs {
		table(h)
	}
	var refs, links []string
	for range referrers {
		n := name("r")
		t := table(n)
		refs = append(refs, n)
		switch p := rng.IntN(100); {
		case p < 45:
			key(t, hubs[0], rng.IntN(20) == 0)
		case p < 90:
			key(t, hubs[1], rng.IntN(20) == 0)
		default:
			key(t, hubs[2+rng.IntN(2)], false)
		}
		if rng.IntN(10) == 0 {
			key(t, hubs[2+rng.IntN(2)], rng.IntN(20) == 0)
		}
		if rng.IntN(50) == 0 && len(refs) > 1 {
			key(t, refs[rng.IntN(len(refs)-1)], false)
		}
	}
	for range 24 {
		n := name(string(rune('a' + rng.IntN(26))))
		t := table(n)
		links = append(links, n)
		for range 2 + rng.IntN(2) {
			key(t, hubs[rng.IntN(len(hubs))], rng.IntN(4) == 0)
		}
	}
	// Hubs' own keys: to links (tenants -> plan <- users, and the rest),
	// to a referrer, and the keys that are no edges.
	for _, h := range hubs {
		t := &snap.Tables[slices.IndexFunc(snap.Tables, func(t snapshot.Table) bool { return t.Name == h })]
		for range rng.IntN(4) {
			key(t, links[rng.IntN(len(links))], false)
		}
		key(t, refs[rng.IntN(len(refs))], false)
		key(t, h, false)
		key(t, "missing", false)
		t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{Columns: []string{"k"}, RefConnection: "other", RefTable: hubs[0], RefColumns: []string{"id"}})
	}
	return snap
}

// TestJoinPathsLinkOracleLarge checks the search on random linkGraphs against
// the oracle: the answer is the first paths of the documented order (a
// prefix of them when cut), and it is whole wherever the bounds promise
// it: within 3 joins, and when limit paths of up to 3 joins exist. Under
// the race detector, with 1,500 referrers, not 12,000.
func TestJoinPathsLinkOracleLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("three 12,028-table indexes")
	}
	referrers := 12_000
	if raceOn {
		referrers = 1_500
	}
	ctx := context.Background()
	cut, found := 0, 0
	for seed := range uint64(3) {
		snap := linkGraph(seed, referrers)
		s, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.PutRelease(ctx, snap, store.FileState{}, true, nil); err != nil {
			t.Fatal(err)
		}
		target := store.Target{Project: "linkgraph", Environment: "dev"}
		g := newOracle(snap)
		rng := rand.New(rand.NewPCG(seed, 7))
		// Hubs and links most of the time; any table otherwise.
		pick := func() snapshot.Table {
			if rng.IntN(3) == 0 {
				return snap.Tables[rng.IntN(len(snap.Tables))]
			}
			if rng.IntN(2) == 0 {
				return snap.Tables[rng.IntN(4)]
			}
			return snap.Tables[len(snap.Tables)-1-rng.IntN(24)]
		}
		for range 80 {
			a, b := pick(), pick()
			for a.Name == b.Name { // one path of no joins, tested on its own
				b = pick()
			}
			hops, limit := 1+rng.IntN(5), 1+rng.IntN(store.MaxJoinPaths)
			got, err := s.JoinPaths(ctx, target, store.JoinPathRequest{From: a.Name, To: b.Name, MaxHops: hops, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			want := g.firstPaths(a, b, hops, limit)
			wantKeys, gotKeys := [][]string{}, [][]string{}
			for _, p := range want {
				wantKeys = append(wantKeys, p.key)
			}
			for _, p := range got.Paths {
				gotKeys = append(gotKeys, append(slices.Clone(p.Tables), p.Joins...))
			}
			whole := hops <= 3 || (len(want) == limit && len(want[limit-1].hops) <= 3)
			if got.Truncated {
				cut++
				if whole {
					t.Errorf("seed %d, %s to %s, %d hops, limit %d: truncated, with %d of %d paths", seed, a.Name, b.Name, hops, limit, len(got.Paths), len(want))
				}
				wantKeys = wantKeys[:min(len(gotKeys), len(wantKeys))]
			}
			if len(want) > 0 {
				found++
			}
			if diff := gocmp.Diff(wantKeys, gotKeys); diff != "" {
				t.Errorf("seed %d, %s to %s, %d hops, limit %d, truncated %v (-want +got):\n%s", seed, a.Name, b.Name, hops, limit, got.Truncated, diff)
			}
		}
	}
	t.Logf("%d searches with paths, %d cut", found, cut)
	if found < 150 {
		t.Errorf("only %d of the pairs tried have paths: the test checks too little", found)
	}
}
