package analysis

import (
	"testing"
	"time"
)

// reportCPU adds the CPU time per operation to a benchmark: on a shared
// machine wall time measures the neighbours too.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
