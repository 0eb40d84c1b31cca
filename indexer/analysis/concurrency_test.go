package analysis

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TestConcurrentAnalyze analyses the same logics from several goroutines
// at once (run it with -race): every answer equals the one-goroutine
// answer.
func TestConcurrentAnalyze(t *testing.T) {
	a := testAnalyzer(t)
	c := NewTables(shopSchema())
	logics := make([]snapshot.Logic, 0, len(constructCases))
	for _, tt := range constructCases {
		if tt.schema == nil {
			logics = append(logics, snapshot.Logic{SQL: tt.sql, Params: tt.params})
		}
	}
	// One logic with a syntax error, to exercise the parser's jump back.
	logics = append(logics, snapshot.Logic{SQL: "SELECT * FORM users"})
	want := make([]snapshot.Analysis, len(logics))
	for i, l := range logics {
		want[i] = a.Analyze(context.Background(), c, l)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range logics {
				k := (i + g*7) % len(logics)
				got := a.Analyze(context.Background(), c, logics[k])
				if diff := cmp.Diff(want[k], got); diff != "" {
					t.Errorf("goroutine %d, %q (-want +got):\n%s", g, logics[k].SQL, diff)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkNewTables builds the lookups of a 10,000-table release.
func BenchmarkNewTables(b *testing.B) {
	s := &snapshot.Snapshot{Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}}}
	big := benchSchema()
	for i := range 10_000 {
		t := big.Tables[i%len(big.Tables)]
		t.Name = t.Name + "_" + itoa(i)
		s.Tables = append(s.Tables, t)
	}
	b.ReportAllocs()
	for range b.N {
		NewTables(s)
	}
}
