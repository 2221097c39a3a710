package driver

import (
	"runtime"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in microseconds from 1 us to 60 s with 3
// significant digits (measurement comes first: at least 3, where go-tpc
// and cockroach use 1).
const (
	minLatencyUs = 1
	maxLatencyUs = 60_000_000
	sigDigits    = 3
)

// NewHistogram makes an empty latency histogram of the recorder's geometry.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(minLatencyUs, maxLatencyUs, sigDigits)
}

// clampUs keeps a latency inside the histogram's range: a value above it is
// recorded as the maximum rather than lost.
func clampUs(us int64) int64 {
	if us < minLatencyUs {
		return minLatencyUs
	}
	if us > maxLatencyUs {
		return maxLatencyUs
	}
	return us
}

// DefaultProcs is how many OS threads run Go code in the driver
// (GOMAXPROCS) unless told otherwise: half the machine's CPUs, at least
// one. On a machine shared with the servers under test the driver competes
// with them for CPU; fewer threads also mean fewer scheduler wake-ups per
// transaction (measured in BENCHMARKS.md: on 2 cores one thread gave more
// throughput and less client CPU per transaction than two). Two Loops
// pinned to the two CPUs (loops.go) did better than one in a saturating
// closed loop (6-14 % in the median of a run), but cost an open loop
// below saturation 1.4x pgbench -R's CPU per transaction ("Loops pinned
// to CPUs"), so the default is unchanged. pgbench's -j plays the same role.
func DefaultProcs() int { return max(1, runtime.NumCPU()/2) }
