package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkTransportFloor is go-sdk alone: an echo tool with a one-field
// input and output, over the same in-memory transports as the other
// benchmarks. What a hubsnap call costs beyond this is hubsnap's.
func BenchmarkTransportFloor(b *testing.B) {
	type echo struct {
		Text string `json:"text"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echo) (*mcp.CallToolResult, echo, error) {
		return nil, in, nil
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"text": "users"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLargeGetTableHandler is hubsnap's own share of a
// schema_get_table call on the large release: the handler (argument
// checks, the store lookup, shaping and writing the answer once), without
// go-sdk's transport and JSON-RPC layers.
func BenchmarkLargeGetTableHandler(b *testing.B) {
	srv := New(largeStore(b), Options{Target: bigDev, Version: "bench"})
	b.Cleanup(srv.Shutdown)
	// A cancellable context, as go-sdk gives a handler.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := GetTableInput{Table: "billing_invoices"}
	b.ReportAllocs()
	for b.Loop() {
		answer, err := srv.getTable(ctx, &mcp.CallToolRequest{}, in)
		if err != nil || len(answer) == 0 {
			b.Fatal(err)
		}
	}
}
