//go:build unix

package driver

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used so
// far, every thread: the driver's clients, its recorder and whatever else
// runs beside them (the monitor's sampling, the progress bars).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
