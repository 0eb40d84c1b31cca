package store_test

import (
	"cmp"
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// TestJoinPathsOracle checks the search against every simple path, found
// by brute force in the snapshot itself, for random pairs of tables of a
// synthetic release, each limit and maxHops: the answer must be the first
// paths of the documented order.
func TestJoinPathsOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,200-table index")
	}
	snap := storetest.Release(storetest.Size{Tables: 1_200})
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutRelease(ctx, snap, store.FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	g := newOracle(snap)
	rng := rand.New(rand.NewPCG(3, 4))
	area := func(t snapshot.Table) string { a, _, _ := strings.Cut(t.Name, "_"); return a }
	found := 0
	for i := range 80 {
		a, b := snap.Tables[rng.IntN(len(snap.Tables))], snap.Tables[rng.IntN(len(snap.Tables))]
		for i%5 != 0 && area(a) != area(b) { // mostly pairs of one area, which keys join
			b = snap.Tables[rng.IntN(len(snap.Tables))]
		}
		hops, limit := 1+rng.IntN(4), 1+rng.IntN(store.MaxJoinPaths)
		got, err := s.JoinPaths(ctx, big, store.JoinPathRequest{From: a.Name, To: b.Name, MaxHops: hops, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		want := g.paths(a, b, hops)
		if a.Connection != b.Connection {
			want = nil
		}
		want = want[:min(limit, len(want))]
		var gotKeys [][]string
		for _, p := range got.Paths {
			// Quoting is tested on its own: the oracle quotes nothing.
			key := slices.Clone(p.Tables)
			for _, j := range p.Joins {
				key = append(key, strings.ReplaceAll(j, `"`, ""))
			}
			gotKeys = append(gotKeys, key)
		}
		var wantKeys [][]string
		for _, p := range want {
			wantKeys = append(wantKeys, p.key)
		}
		if got.Truncated {
			t.Errorf("%s to %s, %d hops: truncated", a.Name, b.Name, hops)
		}
		if len(want) > 0 {
			found++
		}
		if diff := gocmp.Diff(wantKeys, gotKeys); diff != "" {
			t.Errorf("%s to %s, %d hops, limit %d (-want +got):\n%s", a.Name, b.Name, hops, limit, diff)
		}
	}
	if found < 30 {
		t.Errorf("only %d of the pairs tried have paths: the test checks too little", found)
	}
}

// oracle is the join graph of a snapshot, in memory.
type oracle struct {
	adj map[store.TableRef][]oracleEdge
}

type oracleEdge struct {
	to    store.TableRef
	owner string
	pos   int
	join  string // the condition, joining "to" after the table before
}

func newOracle(snap *snapshot.Snapshot) *oracle {
	g := &oracle{adj: map[store.TableRef][]oracleEdge{}}
	have := map[store.TableRef]bool{}
	for _, t := range snap.Tables {
		have[store.TableRef{Connection: t.Connection, Name: t.Name}] = true
	}
	cond := func(next string, nextCols []string, prev string, prevCols []string) string {
		var parts []string
		for i := range nextCols {
			parts = append(parts, next+"."+nextCols[i]+" = "+prev+"."+prevCols[i])
		}
		return strings.Join(parts, " AND ")
	}
	for _, t := range snap.Tables {
		self := store.TableRef{Connection: t.Connection, Name: t.Name}
		for pos, fk := range t.ForeignKeys {
			ref := store.TableRef{Connection: cmp.Or(fk.RefConnection, t.Connection), Name: fk.RefTable}
			if ref.Connection != t.Connection || ref == self || !have[ref] {
				continue
			}
			g.adj[self] = append(g.adj[self], oracleEdge{ref, t.Name, pos, cond(ref.Name, fk.RefColumns, t.Name, fk.Columns)})
			g.adj[ref] = append(g.adj[ref], oracleEdge{self, t.Name, pos, cond(t.Name, fk.Columns, ref.Name, fk.RefColumns)})
		}
	}
	return g
}

type oraclePath struct {
	key  []string // tables, then joins
	hops []oracleEdge
}

// paths returns every simple path of at most hops joins from a to b, in
// the documented order.
func (g *oracle) paths(a, b snapshot.Table, hops int) []oraclePath {
	from, to := store.TableRef{Connection: a.Connection, Name: a.Name}, store.TableRef{Connection: b.Connection, Name: b.Name}
	// The fewest joins from each table to "to", by breadth-first search:
	// a walk never enters a table farther from "to" than it has joins
	// left, which no path of that many joins can pass through. Without
	// it, the hubs of joinpath_hub_test.go would make billions of walks.
	dist := g.distances(to)
	var out []oraclePath
	on := map[store.TableRef]bool{from: true}
	var hopsSoFar []oracleEdge
	var walk func(v store.TableRef)
	walk = func(v store.TableRef) {
		if d, ok := dist[v]; !ok || d > hops-len(hopsSoFar) {
			return
		}
		if v == to {
			p := oraclePath{key: []string{from.Name}, hops: slices.Clone(hopsSoFar)}
			for _, h := range hopsSoFar {
				p.key = append(p.key, h.to.Name)
			}
			for _, h := range hopsSoFar {
				p.key = append(p.key, h.join)
			}
			out = append(out, p)
			return
		}
		if len(hopsSoFar) == hops {
			return
		}
		for _, e := range g.adj[v] {
			if on[e.to] {
				continue
			}
			on[e.to] = true
			hopsSoFar = append(hopsSoFar, e)
			walk(e.to)
			hopsSoFar = hopsSoFar[:len(hopsSoFar)-1]
			delete(on, e.to)
		}
	}
	walk(from)
	slices.SortFunc(out, func(x, y oraclePath) int {
		if c := cmp.Compare(len(x.hops), len(y.hops)); c != 0 {
			return c
		}
		for i := range x.hops {
			if c := cmp.Or(cmp.Compare(x.hops[i].to.Name, y.hops[i].to.Name), cmp.Compare(x.hops[i].owner, y.hops[i].owner),
				cmp.Compare(x.hops[i].pos, y.hops[i].pos)); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}
