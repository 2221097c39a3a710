package spec

import (
	"strings"
	"testing"
	"time"
)

// TestResourceSchedule: sut.resources.schedule reads its slots, a key a
// slot leaves out keeps sut.resources' value, and it survives the
// resolved spec's round trip.
func TestResourceSchedule(t *testing.T) {
	s := mustParse(t, `name: t
sut:
  resources:
    cpus: 1
    memory: 1GiB
    schedule:
      slot: 20s
      slots: [{cpus: 0.5}, {cpus: 2, memory: 2GiB}, {memory: 512MiB}]
workload: {name: tpcb, duration: 60s}
`)
	r := s.SUT.Resources
	if !r.Elastic() || r.Schedule.Slot.D() != 20*time.Second || len(r.Schedule.Slots) != 3 {
		t.Fatalf("read %+v", r.Schedule)
	}
	want := []ResourceStep{{0, 0.5, 1 << 30}, {20 * time.Second, 2, 2 << 30}, {40 * time.Second, 1, 512 << 20}}
	got := r.Steps()
	if len(got) != len(want) {
		t.Fatalf("steps %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	roundTrip(t, s)
}

func TestAutoscale(t *testing.T) {
	s := mustParse(t, "name: t\nsut:\n  resources:\n    autoscale: {max_cpus: 2}\nworkload: {name: tpcb}\n")
	a := s.SUT.Resources.Autoscale
	if a == nil || a.MaxCPUs != 2 || a.MinCPUs != AutoscaleDefaults.MinCPUs || a.TargetUtilization != 0.7 ||
		a.Interval.D() != 5*time.Second {
		t.Fatalf("read %+v", a)
	}
	roundTrip(t, s)
	if s := mustParse(t, "name: t\nworkload: {name: tpcb}\n"); s.SUT.Resources.Elastic() {
		t.Error("resources elastic without schedule or autoscale")
	}
}

// TestElasticRefused: each bad value is named with its path and line.
func TestElasticRefused(t *testing.T) {
	for src, want := range map[string]string{
		"    autoscale: {min_cpus: 2, max_cpus: 1}\n":             "sut.resources.autoscale.max_cpus (line 4): 1: must be at least min_cpus (2): the bounds are inverted",
		"    autoscale: {min_cpus: 0.005, max_cpus: 1}\n":         "sut.resources.autoscale.min_cpus (line 4)",
		"    autoscale: {min_cpus: 0.5}\n":                        "sut.resources.autoscale (line 4): must give max_cpus",
		"    autoscale: {max_cpus: 1, target_utilization: 0}\n":   "sut.resources.autoscale.target_utilization (line 4)",
		"    autoscale: {max_cpus: 1, target_utilization: 1.5}\n": "sut.resources.autoscale.target_utilization (line 4)",
		"    autoscale: {max_cpus: 1, interval: 100ms}\n":         "sut.resources.autoscale.interval (line 4)",
		"    cpus: 4\n    autoscale: {max_cpus: 2}\n":             "sut.resources.cpus (line 4): 4: must be within autoscale's min_cpus and max_cpus",
		"    schedule: {slots: [{cpus: 0.001}]}\n":                "sut.resources.schedule.slots[0].cpus (line 4)",
		"    schedule: {slots: [{memory: 0}]}\n":                  "sut.resources.schedule.slots[0].memory (line 4)",
		"    schedule: {slots: []}\n":                             "sut.resources.schedule.slots (line 4)",
		"    schedule: {slot: 0s, slots: [{cpus: 1}]}\n":          "sut.resources.schedule.slot (line 4)",
		// The phase is 10 s of warmup and 30 s: the third slot of 20 s
		// starts at 40 s.
		"    schedule: {slot: 20s, slots: [{cpus: 1}, {cpus: 2}, {cpus: 1}]}\n": "sut.resources.schedule.slots[2] (line 4): starts at 40s, after the workload phase (warmup 10s + duration 30s) has ended: give at most 2 slots of 20s",
		"    schedule: {slots: [{cpus: 1}]}\n    autoscale: {max_cpus: 1}\n":    "sut.resources.autoscale (line 5): must not be given with sut.resources.schedule",
	} {
		_, problems := Parse([]byte("name: t\nsut:\n  resources:\n" + src + "workload: {name: tpcb, warmup: 10s, duration: 30s}\n"))
		if text := joinProblems(problems); !strings.Contains(text, want) {
			t.Errorf("%q: no %q in\n%s", src, want, text)
		}
	}
}
