package monitor

import (
	"testing"
	"time"
)

// MemoryBaseAndLoaded takes the first round as the base and the mean of
// the rounds in the window as the loaded memory, from the source each
// instance's memory is read from, summed over the instances.
func TestMemoryBaseAndLoaded(t *testing.T) {
	origin := time.Unix(1000, 0)
	const mib = 1 << 20
	cg := &InstanceSeries{MemorySource: "cgroup v2", Samples: []ResourceSample{
		{T: 0, MemCurrent: 100 * mib, RSS: 999 * mib},
		{T: 5 * time.Second, MemCurrent: 150 * mib},
		{T: 10 * time.Second, MemCurrent: 200 * mib}, // the window: mean 250
		{T: 11 * time.Second, MemCurrent: 300 * mib},
		{T: 20 * time.Second, MemCurrent: 900 * mib}, // after it
	}}
	pss := &InstanceSeries{MemorySource: "proc", Samples: []ResourceSample{
		{T: 0, PSS: 10 * mib, RSS: 50 * mib},
		{T: 10 * time.Second, PSS: -1, RSS: 80 * mib}, // between PSS rounds: not counted
		{T: 12 * time.Second, PSS: 30 * mib, RSS: 90 * mib},
	}}
	rss := &InstanceSeries{MemorySource: "proc", Samples: []ResourceSample{
		{T: 0, PSS: -1, RSS: 40 * mib},
		{T: 10 * time.Second, PSS: -1, RSS: 60 * mib},
		{T: 12 * time.Second, PSS: -1, RSS: 80 * mib},
	}}
	s := &Samples{Origin: origin, Instances: []*InstanceSeries{cg, pss, rss}, Marks: []Mark{{Label: "start"}}}
	from, to := origin.Add(10*time.Second), origin.Add(12*time.Second)
	base, loaded, ok := s.MemoryBaseAndLoaded(from, to)
	// base 100 + 10 + 40; loaded (200+300)/2 + 30 + (60+80)/2
	if !ok || base != 150 || loaded != 250+30+70 {
		t.Errorf("base %v, loaded %v, ok %v; want 150, 350, true", base, loaded, ok)
	}

	// Unknown: no samples, no start round, or no round in the window.
	if _, _, ok := (*Samples)(nil).MemoryBaseAndLoaded(from, to); ok {
		t.Error("nil samples: ok")
	}
	late := &Samples{Origin: origin, Instances: []*InstanceSeries{cg}, Marks: []Mark{{Label: "start", T: -time.Second}}}
	if _, _, ok := late.MemoryBaseAndLoaded(from, to); ok {
		t.Error("first round after the start mark: ok")
	}
	if _, _, ok := s.MemoryBaseAndLoaded(origin.Add(30*time.Second), origin.Add(40*time.Second)); ok {
		t.Error("no round in the window: ok")
	}
	noMark := &Samples{Origin: origin, Instances: []*InstanceSeries{cg}}
	if _, _, ok := noMark.MemoryBaseAndLoaded(from, to); ok {
		t.Error("no start mark: ok")
	}
}
