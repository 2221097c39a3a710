package load

import (
	"strings"
	"testing"
	"time"
)

// A system that scales linearly up to 8 clients and is flat after: tau is
// 8, the last concurrency that still gained 5 %.
func TestCalibrationKnee(t *testing.T) {
	tps := func(n int) float64 { return 1000 * float64(min(n, 8)) }
	c := Calibration{Start: 1, Step: 1, MinGain: 0.05}
	var tried []int
	for n, ok := c.Next(); ok; n, ok = c.Next() {
		tried = append(tried, n)
		c.Add(n, tps(n), time.Millisecond)
	}
	tau, why := c.Tau()
	if tau != 8 || len(tried) != 9 || !strings.Contains(why, "grew by 0.0 %") {
		t.Errorf("tau %d after %v: %s", tau, tried, why)
	}
	// doubling
	c = Calibration{MinGain: 0.05}
	tried = nil
	for n, ok := c.Next(); ok; n, ok = c.Next() {
		tried = append(tried, n)
		c.Add(n, tps(n), time.Millisecond)
	}
	if tau, _ := c.Tau(); tau != 8 || len(tried) != 5 {
		t.Errorf("doubling: tau %d after %v", tau, tried)
	}
}

func TestCalibrationLatencyBound(t *testing.T) {
	c := Calibration{Start: 2, Step: 2, MinGain: 0.05, MaxP99: 50 * time.Millisecond}
	for n, ok := c.Next(); ok; n, ok = c.Next() {
		c.Add(n, float64(100*n), time.Duration(n*n)*time.Millisecond) // p99 n^2 ms
	}
	if tau, why := c.Tau(); tau != 6 || !strings.Contains(why, "passed the bound") {
		t.Errorf("tau %d: %s (p99 passes 50 ms at 8)", tau, why)
	}
	c = Calibration{Step: 10, Max: 30, MinGain: 0.05}
	for n, ok := c.Next(); ok; n, ok = c.Next() {
		c.Add(n, float64(n), 0)
	}
	if tau, why := c.Tau(); tau != 21 || !strings.Contains(why, "largest concurrency") {
		t.Errorf("tau %d: %s", tau, why)
	}
}
