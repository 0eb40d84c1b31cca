package mcpserver

import (
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkLargeJoinPathP99 is one schema_join_path call over
// storetest.Large through the go-sdk client, timing each call and
// reporting the median and 99th percentile ("p50-ms", "p99-ms"): between
// two hub tables (base tables dozens of keys point at, two joins apart)
// and between two leaves (four joins apart, through the hubs). For a
// meaningful p99 run a few hundred iterations (-benchtime 300x).
func BenchmarkLargeJoinPathP99(b *testing.B) {
	cs := largeSession(b)
	for _, bc := range []struct{ name, from, to string }{
		{"hubs", "billing_invoices", "billing_orders"},
		{"leaves", "billing_orders_notes", "billing_invoices_stats"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "schema_join_path", Arguments: map[string]any{"from": bc.from, "to": bc.to}}
			var out JoinPathOutput
			decodeText(b, callOK(b, cs, params), &out)
			if len(out.Paths) != 3 || out.Truncated {
				b.Fatalf("%s to %s: %+v", bc.from, bc.to, out)
			}
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				callOK(b, cs, params)
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(msAt(times, 0.50), "p50-ms")
			b.ReportMetric(msAt(times, 0.99), "p99-ms")
		})
	}
}
