//go:build !unix

package driver

import "time"

// processCPU is unknown where getrusage is not available.
func processCPU() (time.Duration, bool) { return 0, false }
