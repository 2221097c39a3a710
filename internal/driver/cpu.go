package driver

import (
	"sync"
	"time"
)

// cpuMeter measures the process's CPU time over the measured part of the
// workload phase: from the end of the warmup to the moment the clients
// stop. The driver competes with the servers for the host's CPUs when
// they share it, so every run records what it cost (Result.DriverCPU).
type cpuMeter struct {
	mu      sync.Mutex
	from    time.Duration
	started bool
	timer   *time.Timer
}

// startCPU begins measuring after warmup (at once when there is none).
func startCPU(warmup time.Duration) *cpuMeter {
	m := &cpuMeter{}
	if warmup <= 0 {
		m.mark()
		return m
	}
	m.timer = time.AfterFunc(warmup, m.mark)
	return m
}

func (m *cpuMeter) mark() {
	at, ok := processCPU()
	m.mu.Lock()
	m.from, m.started = at, ok
	m.mu.Unlock()
}

// stop is the CPU time since the warmup ended; false when the phase was
// cut within the warmup or the CPU time is unknown here.
func (m *cpuMeter) stop() (time.Duration, bool) {
	if m.timer != nil {
		m.timer.Stop()
	}
	end, ok := processCPU()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok || !m.started || end < m.from {
		return 0, false
	}
	return end - m.from, true
}
