package pgparse

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	sharedOnce sync.Once
	shared     *Parser
	sharedErr  error
)

// testParser returns one parser shared by the package's tests, its
// compilation cache in the system's temporary folder (the one the
// analysis tests use: the same module, compiled once).
func testParser(tb testing.TB) *Parser {
	tb.Helper()
	sharedOnce.Do(func() {
		shared = New(filepath.Join(os.TempDir(), "hubsnap-analysis-test-wazero"))
		sharedErr = shared.Prepare(context.Background())
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return shared
}
