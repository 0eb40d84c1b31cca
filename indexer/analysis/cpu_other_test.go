//go:build !unix

package analysis

import "time"

// cpuTime is 0 where getrusage is not there: cpu-ns/op is then 0.
func cpuTime() time.Duration { return 0 }
