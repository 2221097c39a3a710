package monitor

import (
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestWaitEvery: a server's wait samples read at most waitRowsPerSecond
// sessions a second: every tick up to 200 sessions at 100 ms, every fifth
// at 1,000, every tenth at 2,000; at a 1 s interval every tick up to
// 2,000.
func TestWaitEvery(t *testing.T) {
	for _, c := range []struct {
		rows     int
		interval time.Duration
		want     int
	}{
		{0, 100 * time.Millisecond, 1},
		{24, 100 * time.Millisecond, 1},
		{200, 100 * time.Millisecond, 1},
		{201, 100 * time.Millisecond, 2},
		{1000, 100 * time.Millisecond, 5},
		{2000, 100 * time.Millisecond, 10},
		{2000, time.Second, 1},
		{2001, time.Second, 2},
	} {
		if got := waitEvery(c.rows, c.interval); got != c.want {
			t.Errorf("%d sessions every %v: every %d ticks, want %d", c.rows, c.interval, got, c.want)
		}
	}
}

// TestWaitInterval: up to 10 servers each is sampled every WaitInterval;
// beyond, all together take 100 samples a second.
func TestWaitInterval(t *testing.T) {
	for _, c := range []struct {
		servers int
		want    time.Duration
	}{{1, 100 * time.Millisecond}, {10, 100 * time.Millisecond}, {20, 200 * time.Millisecond}, {100, time.Second}} {
		m := New(Config{Instances: make([]*provider.Instance, c.servers)})
		if got := m.waitInterval(); got != c.want {
			t.Errorf("%d servers: every %v, want %v", c.servers, got, c.want)
		}
	}
}
