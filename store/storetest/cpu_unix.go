//go:build unix

package storetest

import (
	"syscall"
	"time"
)

// CPUTime is the process's user plus system CPU time so far: what the
// import and insert benchmarks report beside the wall clock, which on a
// shared machine measures the neighbours too.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
