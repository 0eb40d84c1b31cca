package analysis

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	sharedOnce sync.Once
	shared     *Analyzer
	sharedErr  error
)

// testAnalyzer returns one Analyzer shared by the package's tests. Its
// compilation cache lives in the system's temporary folder, so test and
// fuzz worker processes after the first start in a fraction of a second.
func testAnalyzer(tb testing.TB) *Analyzer {
	tb.Helper()
	sharedOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "hubsnap-analysis-test-wazero")
		shared, sharedErr = New(context.Background(), Options{CacheDir: dir})
		if sharedErr == nil {
			sharedErr = shared.Prepare(context.Background())
		}
		// The engine of long SQL too, now: compiled at its first use,
		// under -race a compile takes longer than the time limits
		// TestBadInputBounded holds an analysis to.
		if sharedErr == nil {
			sharedErr = shared.p.Ready(context.Background(), MaxSQL)
		}
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return shared
}
