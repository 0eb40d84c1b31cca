package analysis

import (
	"context"
	"sync"
	"testing"
)

var (
	sharedOnce sync.Once
	shared     *Analyzer
	sharedErr  error
)

// testAnalyzer returns one Analyzer shared by the package's tests (the
// parser compiles once per test process).
func testAnalyzer(tb testing.TB) *Analyzer {
	tb.Helper()
	sharedOnce.Do(func() {
		shared, sharedErr = New(context.Background(), Options{})
		if sharedErr == nil {
			sharedErr = shared.Prepare(context.Background())
		}
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return shared
}
