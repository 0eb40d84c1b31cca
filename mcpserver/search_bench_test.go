package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// BenchmarkSearchTool is one schema_search call through the MCP client and
// server (in-memory transport) on storetest.Large, 10,000 tables, indexed
// and optimized as the indexer leaves it: a rare query (one table), a word
// in every table, a prefix, and words in thousands of column comments.
func BenchmarkSearchTool(b *testing.B) {
	ctx := context.Background()
	st := openStore(b)
	if err := st.PutRelease(ctx, storetest.Release(storetest.Large), store.FileState{}, true, nil); err != nil {
		b.Fatal(err)
	}
	if err := st.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	srv := New(st, Options{Target: bigDev, Version: "bench"})
	b.Cleanup(srv.Shutdown)
	cs := connect(b, srv)

	for _, bc := range []struct {
		name, query string
		min         int // hits expected at least
	}{
		{"rare", "procurement vendors archive", 1},
		{"common", "id", store.DefaultSearchLimit},
		{"prefix", "procur", store.DefaultSearchLimit},
		{"comment", "minor units", store.DefaultSearchLimit},
	} {
		b.Run(bc.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "schema_search", Arguments: map[string]any{"query": bc.query}}
			check := func(res *mcp.CallToolResult, err error) {
				b.Helper()
				if err != nil || res.IsError {
					b.Fatalf("%q: %v %s", bc.query, err, short(res))
				}
				var out SearchOutput
				if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
					b.Fatal(err)
				}
				if len(out.Hits) < bc.min {
					b.Fatalf("%q: %d hits, want at least %d", bc.query, len(out.Hits), bc.min)
				}
			}
			check(cs.CallTool(ctx, params))
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("%q: %v %s", bc.query, err, short(res))
				}
			}
		})
	}
}
