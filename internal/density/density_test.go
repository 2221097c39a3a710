package density

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// machine is a fake deployment: each tenant costs cpu and mem percent of
// the machine; beyond slaAt tenants the SLA fails.
type machine struct {
	cpu, mem float64
	slaAt    int
	tried    []int
}

func (m *machine) probe(_ context.Context, n int) (Probe, error) {
	m.tried = append(m.tried, n)
	return Probe{OK: true, SLAMet: m.slaAt == 0 || n <= m.slaAt, CPUPct: m.cpu * float64(n), MemPct: m.mem * float64(n),
		TPS: float64(n), Elapsed: time.Second}, nil
}

func TestSearch(t *testing.T) {
	for _, c := range []struct {
		name  string
		m     machine
		cfg   Config
		found int
		tried []int
		exact bool
	}{
		// 68 % at 3 % a tenant: 22 fit (66 %), 23 do not (69 %).
		{"cpu bound", machine{cpu: 3, mem: 1}, Config{Start: 1, Max: 1000, Factor: 2, Limits: Oracle2014}, 22,
			[]int{1, 2, 4, 8, 16, 32, 24, 20, 22, 23}, true},
		// 75 % at 10 % a tenant: 7 fit.
		{"memory bound", machine{cpu: 1, mem: 10}, Config{Start: 1, Max: 1000, Factor: 2, Limits: Oracle2014}, 7,
			[]int{1, 2, 4, 8, 6, 7}, true},
		{"sla bound", machine{cpu: 0.1, mem: 0.1, slaAt: 5}, Config{Start: 2, Max: 1000, Factor: 3, Limits: Oracle2014}, 5,
			[]int{2, 6, 4, 5}, true},
		{"all fit", machine{cpu: 0.01, mem: 0.01}, Config{Start: 1, Max: 10, Factor: 4, Limits: Oracle2014}, 10,
			[]int{1, 4, 10}, true},
		{"none fit", machine{cpu: 80, mem: 1}, Config{Start: 4, Max: 10, Factor: 2, Limits: Oracle2014}, 0,
			[]int{4, 2, 1}, true},
		{"run budget", machine{cpu: 3, mem: 1}, Config{Start: 1, Max: 1000, Factor: 2, Limits: Oracle2014, MaxRuns: 7}, 16,
			[]int{1, 2, 4, 8, 16, 32, 24}, false},
		{"factor 1.5 grows by one at least", machine{cpu: 30, mem: 1}, Config{Start: 1, Max: 100, Factor: 1.5, Limits: Oracle2014}, 2,
			[]int{1, 2, 3}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			res, err := Search(context.Background(), c.cfg, m.probe)
			if err != nil {
				t.Fatal(err)
			}
			if res.Found != c.found || !reflect.DeepEqual(m.tried, c.tried) || res.Exact != c.exact {
				t.Errorf("found %d after %v (exact %v, %s); want %d after %v (exact %v)", res.Found, m.tried, res.Exact, res.Stopped,
					c.found, c.tried, c.exact)
			}
			if len(res.Probes) != len(m.tried) {
				t.Errorf("%d probes kept of %d run", len(res.Probes), len(m.tried))
			}
			if c.found > 0 && (res.Best == nil || res.Best.Tenants != c.found) {
				t.Errorf("best %+v", res.Best)
			}
			if !c.exact && res.Stopped == "" {
				t.Error("a search cut by its budget says nothing")
			}
		})
	}
}

// TestSearchTimeBudget: the search stops before a probe that would run
// past the time budget, judged by the probes so far.
func TestSearchTimeBudget(t *testing.T) {
	calls := 0
	slow := func(_ context.Context, n int) (Probe, error) {
		calls++
		time.Sleep(20 * time.Millisecond)
		return Probe{OK: true, SLAMet: true, CPUPct: 1, MemPct: 1}, nil
	}
	res, err := Search(context.Background(), Config{Start: 1, Max: 1 << 20, Factor: 2, Limits: Oracle2014, MaxTime: 70 * time.Millisecond}, slow)
	if err != nil {
		t.Fatal(err)
	}
	// 3 at most (a fourth would end at 80 ms); fewer on a loaded machine,
	// where a sleep lasts longer.
	if calls < 1 || calls > 3 || res.Exact || res.Stopped == "" {
		t.Errorf("%d probes in 70 ms of 20 ms probes; exact %v, stopped %q", calls, res.Exact, res.Stopped)
	}
}

// TestSearchErrors: a bad config is refused; a probe's error ends the
// search with it and keeps what it found.
func TestSearchErrors(t *testing.T) {
	for _, c := range []Config{{Start: 0, Max: 4, Factor: 2, Limits: Oracle2014}, {Start: 2, Max: 1, Factor: 2, Limits: Oracle2014},
		{Start: 1, Max: 4, Factor: 1, Limits: Oracle2014}, {Start: 1, Max: 4, Factor: 2, Limits: Limits{CPUPct: 101, MemPct: 5}}} {
		if _, err := Search(context.Background(), c, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	boom := errors.New("no server")
	res, err := Search(context.Background(), Config{Start: 1, Max: 8, Factor: 2, Limits: Oracle2014}, func(_ context.Context, n int) (Probe, error) {
		if n == 4 {
			return Probe{}, boom
		}
		return Probe{OK: true, SLAMet: true, CPUPct: 1, MemPct: 1}, nil
	})
	if !errors.Is(err, boom) || res.Found != 2 || len(res.Probes) != 3 {
		t.Errorf("err %v, found %d, %d probes", err, res.Found, len(res.Probes))
	}
}

func TestWhy(t *testing.T) {
	l := Oracle2014
	for p, want := range map[Probe]string{
		{OK: true, SLAMet: true, CPUPct: 68, MemPct: 75}:   "",
		{OK: false, SLAMet: true}:                          "run failed",
		{OK: true, SLAMet: false}:                          "sla not met",
		{OK: true, SLAMet: true, CPUPct: -1, MemPct: 1}:    "not measured",
		{OK: true, SLAMet: true, CPUPct: 68.5, MemPct: 1}:  "cpu 68.5 % > 68 %",
		{OK: true, SLAMet: true, CPUPct: 1, MemPct: 75.01}: "memory 75.0 % > 75 %",
	} {
		if got := p.Why(l); got != want {
			t.Errorf("%s: Why = %q, want %q", fmt.Sprint(p), got, want)
		}
	}
}
