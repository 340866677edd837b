//go:build !unix

package customrules

import "time"

// cpuTime is not measured here; the benchmark then reports wall time only.
func cpuTime() time.Duration { return 0 }
