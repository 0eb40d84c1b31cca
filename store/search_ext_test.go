package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// TestSearchLarge searches storetest.Large: 10,000 tables, about 150,000
// columns and 2,000 logics, where common words match thousands of things.
func TestSearchLarge(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("builds a 10,000-table index; .ci/run runs it without -race")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := s.PutRelease(ctx, storetest.Release(storetest.Large), store.FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	big := store.Target{Project: "big", Environment: "dev"}
	search := func(t *testing.T, q store.SearchQuery) store.SearchResult {
		t.Helper()
		start := time.Now()
		res, err := s.Search(ctx, big, q)
		if err != nil {
			t.Fatalf("Search(%q): %v", q.Text, err)
		}
		// Generous: a search is about a millisecond; this catches a
		// search that ranks every match of a common word.
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Search(%q) took %v", q.Text, d)
		}
		return res
	}

	t.Run("id", func(t *testing.T) {
		res := search(t, store.SearchQuery{Text: "id"})
		if len(res.Hits) != store.DefaultSearchLimit || !res.More {
			t.Fatalf("%d hits, More %v; want %d and More", len(res.Hits), res.More, store.DefaultSearchLimit)
		}
		// Columns named just "id" rank first: a whole word, one word.
		for i, h := range res.Hits {
			if h.Kind != store.KindColumn || h.Column != "id" || h.Matched != store.MatchName || h.Text != "" {
				t.Errorf("hit %d = %+v, want a column id matched by name", i, h)
			}
			if i > 0 {
				prev := res.Hits[i-1]
				if prev.Connection > h.Connection || prev.Connection == h.Connection && prev.Table >= h.Table {
					t.Errorf("hits %d and %d out of order: %s.%s, %s.%s", i-1, i, prev.Connection, prev.Table, h.Connection, h.Table)
				}
			}
		}
	})
	t.Run("id limit 100", func(t *testing.T) {
		res := search(t, store.SearchQuery{Text: "id", Limit: store.MaxSearchLimit})
		if len(res.Hits) != store.MaxSearchLimit || !res.More {
			t.Fatalf("%d hits, More %v; want %d and More", len(res.Hits), res.More, store.MaxSearchLimit)
		}
		// Once the "id" columns end, longer names follow; never an "id"
		// column after one.
		seenOther := false
		for i, h := range res.Hits {
			if h.Column != "id" {
				seenOther = true
			} else if seenOther {
				t.Errorf("hit %d = %+v: an id column after a longer name", i, h)
			}
		}
	})
	t.Run("rare", func(t *testing.T) {
		res := search(t, store.SearchQuery{Text: "procurement vendors archive"})
		if len(res.Hits) == 0 {
			t.Fatal("no hits")
		}
		want := store.Hit{Kind: store.KindTable, Connection: "main", Table: "procurement_vendors_archive", Matched: store.MatchName}
		if diff := cmp.Diff(want, res.Hits[0]); diff != "" {
			t.Errorf("first hit mismatch (-want +got):\n%s", diff)
		}
		for _, h := range res.Hits[1:] {
			if h.Kind == store.KindTable && h.Matched == store.MatchName {
				t.Errorf("another table matched by name: %+v", h)
			}
		}
	})
	t.Run("rare qualified column", func(t *testing.T) {
		res := search(t, store.SearchQuery{Text: "billing invoices lines line no", Kinds: []store.Kind{store.KindColumn}})
		want := []store.Hit{
			{Kind: store.KindColumn, Connection: "main", Table: "billing_invoices_lines", Column: "line_no", Matched: store.MatchName},
		}
		if diff := cmp.Diff(want, res.Hits); diff != "" || res.More {
			t.Errorf("More %v, hits mismatch (-want +got):\n%s", res.More, diff)
		}
	})
	t.Run("korean", func(t *testing.T) {
		res := search(t, store.SearchQuery{Text: "고객"})
		if len(res.Hits) != store.DefaultSearchLimit || !res.More {
			t.Fatalf("%d hits, More %v; want %d and More", len(res.Hits), res.More, store.DefaultSearchLimit)
		}
		for i, h := range res.Hits {
			if h.Kind != store.KindTable || !strings.HasPrefix(h.Table, "고객_") || h.Matched != store.MatchName {
				t.Errorf("hit %d = %+v, want a table 고객_... matched by name", i, h)
			}
		}
	})
	t.Run("comment words", func(t *testing.T) {
		res := search(t, store.SearchQuery{Text: "minor units"})
		if len(res.Hits) != store.DefaultSearchLimit || !res.More {
			t.Fatalf("%d hits, More %v; want %d and More", len(res.Hits), res.More, store.DefaultSearchLimit)
		}
		for i, h := range res.Hits {
			if h.Kind != store.KindColumn || h.Column != "amount" || h.Matched != store.MatchComment ||
				h.Text != "Amount in minor units of the currency" {
				t.Errorf("hit %d = %+v, want the comment of an amount column", i, h)
			}
		}
	})
	t.Run("nothing", func(t *testing.T) {
		for _, q := range []string{"zebra", "procurement zebra", "id zebra", "고객 zebra", "!!!"} {
			res := search(t, store.SearchQuery{Text: q})
			if len(res.Hits) != 0 || res.More {
				t.Errorf("%q: %d hits, More %v; want none", q, len(res.Hits), res.More)
			}
		}
	})
}
