//go:build !unix

package storetest

import "time"

// CPUTime is 0 where getrusage is not there: the benchmarks' cpu-ns/op
// is then 0, and only their wall clock is a figure.
func CPUTime() time.Duration { return 0 }
