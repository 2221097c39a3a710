package driver

import "github.com/HdrHistogram/hdrhistogram-go"

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
