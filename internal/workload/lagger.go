package workload

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Lagger is a workload that measures replication lag (the lag workload,
// Zhang et al. 2025, section II-B): how long each change committed on
// the primary took to show on a replica, by operation type and replica.
// The run gives it the measured part of the workload phase as the phase
// starts (Measure: changes committed outside it are not counted) and
// reads its histograms after the phase (Lags).
type Lagger interface {
	Measure(from, to time.Time)
	Lags() []LagHistogram
}

// LagHistogram is the lag of one operation type ("insert", "update",
// "delete") on the Replica-th replica of the tenant's server (0-based),
// in microseconds, with the driver's geometry (1 us to 60 s, 3
// significant digits).
type LagHistogram struct {
	Op      string
	Replica int
	Hist    *hdrhistogram.Histogram
}

// NewLagHistogram is an empty histogram of LagHistogram's geometry.
func NewLagHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }
