package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

func TestPSSBudget(t *testing.T) {
	var b pssBudget
	var one, two pssClock
	if got := b.every(10 * time.Second); got != 10*time.Second {
		t.Errorf("no cost yet: every %v, want the configured 10s", got)
	}
	// Two servers' PSS rounds of 150 and 100 ms: together 250 ms, at
	// most 0.5 % of the time between rounds.
	one.took, two.took = 150*time.Millisecond, 100*time.Millisecond
	one.publish(&b)
	two.publish(&b)
	if got := b.every(10 * time.Second); got != 50*time.Second {
		t.Errorf("250 ms a round: every %v, want 50s", got)
	}
	// A server's later round replaces its earlier one in the sum.
	one.took = 10 * time.Millisecond
	one.publish(&b)
	if got := b.every(10 * time.Second); got != 22*time.Second {
		t.Errorf("110 ms a round: every %v, want 22s", got)
	}
	if got := b.every(time.Minute); got != time.Minute {
		t.Errorf("configured 1m: every %v", got)
	}
	var none *pssBudget
	if got := none.every(10 * time.Second); got != 10*time.Second {
		t.Errorf("no budget: every %v", got)
	}
}

// TestPSSCostMeasured: a real PSS round's CPU goes into the budget, and
// the next PSS round waits for the configured interval while it is small.
func TestPSSCostMeasured(t *testing.T) {
	inst := pgtest.Start(t)
	ctx := context.Background()
	m := New(Config{Instances: []*provider.Instance{inst}, Interval: time.Hour, WaitInterval: -1, PSSInterval: 10 * time.Second})
	if err := m.Start(ctx); err != nil { // its first round reads PSS
		t.Fatal(err)
	}
	defer m.Stop()
	s := m.samplers[0]
	cost := time.Duration(m.pss.cost.Load())
	if cost <= 0 || cost > time.Second {
		t.Errorf("a PSS round of one small server took %v of CPU", cost)
	}
	if s.series[0].PSS <= 0 {
		t.Errorf("first round's PSS %d", s.series[0].PSS)
	}
	s.sample(ctx, time.Now())
	if got := s.series[len(s.series)-1].PSS; got != -1 {
		t.Errorf("PSS read again after less than the interval: %d", got)
	}
	s.sample(ctx, time.Now().Add(11*time.Second))
	if got := s.series[len(s.series)-1].PSS; got <= 0 {
		t.Errorf("PSS not read after the interval: %d", got)
	}
}
