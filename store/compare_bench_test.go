package store_test

import (
	"context"
	"testing"
)

// BenchmarkCompare is the comparison hubsnap index verify makes between
// the index and one rebuilt from the release files, on two indexes of
// storetest.Large (10,000 tables).
func BenchmarkCompare(b *testing.B) {
	a := openBig(b, true)
	c := openBig(b, true)
	ctx := context.Background()
	for b.Loop() {
		d, err := a.Compare(ctx, c)
		if err != nil || len(d) > 0 {
			b.Fatal(err, d)
		}
	}
}
