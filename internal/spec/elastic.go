package spec

import (
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"
)

// ResourceSchedule is sut.resources.schedule: each server's CPU and
// memory limits slot by slot over the workload phase, applied to its
// cgroup while it runs (a serverless database given other resources as
// time goes on). Slot i starts at i × Slot from the phase's start and
// lasts until the next; the last lasts to the phase's end. A slot's key
// left out keeps sut.resources' value. Values are per server (divide
// does not apply to them).
type ResourceSchedule struct {
	Slot  Duration       `yaml:"slot"`
	Slots []ResourceSlot `yaml:"slots"`
}

// ResourceSlot is one slot's limits; nil keeps sut.resources' own.
type ResourceSlot struct {
	CPUs   *float64  `yaml:"cpus,omitempty"`
	Memory *ByteSize `yaml:"memory,omitempty"`
}

// Autoscale is sut.resources.autoscale: a policy that raises and lowers
// each server's CPU quota, every Interval, towards the CPU it used over
// the interval divided by TargetUtilization, within [MinCPUs, MaxCPUs]
// (the serverless databases of Zhang et al. 2025, section III-C).
type Autoscale struct {
	MinCPUs           float64  `yaml:"min_cpus"`
	MaxCPUs           float64  `yaml:"max_cpus"`
	TargetUtilization float64  `yaml:"target_utilization"`
	Interval          Duration `yaml:"interval"`
}

// AutoscaleDefaults are what sut.resources.autoscale leaves unwritten:
// Zhang et al.'s (2025) CDB3 scales down to 0.25 of a unit (section
// III-A); 0.7 of the quota is a common target of CPU autoscalers
// (Kubernetes' examples use 50 to 80 %); a decision every 5 s is finer
// than the paper's scaling times of 11 s and more (Table VI).
var AutoscaleDefaults = Autoscale{MinCPUs: 0.25, TargetUtilization: 0.7, Interval: Duration(5 * time.Second)}

// Elastic says the servers' resources change during the workload
// phase: sut.resources has a schedule or an autoscale policy.
func (r *Resources) Elastic() bool { return r.Schedule != nil || r.Autoscale != nil }

// Steps are the schedule's slots resolved: when each starts (from the
// phase's start) and the CPUs and memory bytes it gives (sut.resources'
// where the slot says nothing).
func (r *Resources) Steps() []ResourceStep {
	if r.Schedule == nil {
		return nil
	}
	out := make([]ResourceStep, len(r.Schedule.Slots))
	for i, sl := range r.Schedule.Slots {
		st := ResourceStep{At: time.Duration(i) * r.Schedule.Slot.D(), CPUs: r.CPUs, MemoryBytes: int64(r.Memory)}
		if sl.CPUs != nil {
			st.CPUs = *sl.CPUs
		}
		if sl.Memory != nil {
			st.MemoryBytes = int64(*sl.Memory)
		}
		out[i] = st
	}
	return out
}

// ResourceStep is one slot of a schedule, resolved.
type ResourceStep struct {
	At          time.Duration
	CPUs        float64
	MemoryBytes int64
}

// resourceSchedule reads sut.resources.schedule.
func (d *Decoder) resourceSchedule(n *yaml.Node, path string, dst **ResourceSchedule) {
	if IsNull(n) {
		return
	}
	s := &ResourceSchedule{Slot: defaultSlot}
	d.Mapping(n, path, []Field{
		{"slot", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Slot) }},
		{"slots", func(n *yaml.Node, p string) {
			s.Slots = []ResourceSlot{}
			d.Seq(n, p, "slots of limits ({cpus: 0.5, memory: 1GiB})", func(e *yaml.Node, p string) {
				var sl ResourceSlot
				d.Mapping(e, p, []Field{
					{"cpus", func(n *yaml.Node, p string) {
						var v float64
						if Scalar(d, n, p, ReadFloat, &v) {
							sl.CPUs = &v
						}
					}},
					{"memory", func(n *yaml.Node, p string) {
						var v ByteSize
						if Scalar(d, n, p, ReadByteSize, &v) {
							sl.Memory = &v
						}
					}},
				})
				s.Slots = append(s.Slots, sl)
			})
		}},
	})
	*dst = s
}

// autoscale reads sut.resources.autoscale, its defaults where unwritten.
func (d *Decoder) autoscale(n *yaml.Node, path string, dst **Autoscale) {
	if IsNull(n) {
		return
	}
	a := AutoscaleDefaults
	d.Mapping(n, path, []Field{
		{"min_cpus", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &a.MinCPUs) }},
		{"max_cpus", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &a.MaxCPUs) }},
		{"target_utilization", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &a.TargetUtilization) }},
		{"interval", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &a.Interval) }},
	})
	*dst = &a
}

// minAutoscaleInterval is the shortest autoscale interval: ten CFS
// periods, so that the CPU used over an interval measures the quota.
const minAutoscaleInterval = Duration(time.Second)

// elastic checks the schedule and the autoscale policy as written; the
// plan asks the provider whether it can resize at all.
func (v *validator) elastic(s *Spec) {
	r := s.SUT.Resources
	cpusOK := func(x float64) bool { return x >= MinCPUs && !math.IsInf(x, 0) }
	if r.Schedule != nil && r.Autoscale != nil {
		v.add("sut.resources.autoscale", "", "must not be given with sut.resources.schedule: give a schedule of limits or an autoscale policy")
	}
	if sc := r.Schedule; sc != nil {
		if sc.Slot <= 0 {
			v.add("sut.resources.schedule.slot", sc.Slot.String(), "must be a duration greater than 0")
		}
		if len(sc.Slots) == 0 {
			v.add("sut.resources.schedule.slots", "", "must list at least one slot of limits ({cpus: 0.5, memory: 1GiB})")
		}
		phase := s.Workload.phase()
		for i, sl := range sc.Slots {
			p := index("sut.resources.schedule.slots", i)
			if sl.CPUs != nil && !cpusOK(*sl.CPUs) {
				v.add(p+".cpus", fmt.Sprint(*sl.CPUs), fmt.Sprintf("must be at least %g CPUs (the least CFS quota that means something)", MinCPUs))
			}
			if sl.Memory != nil && *sl.Memory <= 0 {
				v.add(p+".memory", sl.Memory.String(), "must be a size greater than 0")
			}
			if at := time.Duration(i) * sc.Slot.D(); sc.Slot > 0 && at >= phase {
				v.add(p, "", fmt.Sprintf("starts at %v, after the workload phase (warmup %v + duration %v) has ended: "+
					"give at most %d slots of %v, or a shorter slot", at, s.Workload.Warmup, s.Workload.Duration,
					int((phase+sc.Slot.D()-1)/sc.Slot.D()), sc.Slot))
			}
		}
	}
	if a := r.Autoscale; a != nil {
		v.autoscale(a, "sut.resources.autoscale", r.CPUs)
	}
}

// autoscale checks an autoscale policy written at p (sut.resources's or
// a case's) for servers started with cpus.
func (v *validator) autoscale(a *Autoscale, p string, cpus float64) {
	cpusOK := func(x float64) bool { return x >= MinCPUs && !math.IsInf(x, 0) }
	if !cpusOK(a.MinCPUs) {
		v.add(p+".min_cpus", fmt.Sprint(a.MinCPUs), fmt.Sprintf("must be at least %g CPUs", MinCPUs))
	}
	switch {
	case a.MaxCPUs == 0:
		v.add(p, "", "must give max_cpus: the most CPUs the policy may give a server")
	case !cpusOK(a.MaxCPUs):
		v.add(p+".max_cpus", fmt.Sprint(a.MaxCPUs), fmt.Sprintf("must be at least %g CPUs", MinCPUs))
	case a.MaxCPUs < a.MinCPUs:
		v.add(p+".max_cpus", fmt.Sprint(a.MaxCPUs), fmt.Sprintf("must be at least min_cpus (%g): the bounds are inverted", a.MinCPUs))
	}
	if !(a.TargetUtilization > 0 && a.TargetUtilization <= 1) {
		v.add(p+".target_utilization", fmt.Sprint(a.TargetUtilization), "must be a share of the quota, greater than 0 and at most 1 (0.7: 70 %)")
	}
	if a.Interval < minAutoscaleInterval {
		v.add(p+".interval", a.Interval.String(), fmt.Sprintf("must be at least %v (ten CFS periods)", minAutoscaleInterval))
	}
	if c := cpus; c > 0 && a.MaxCPUs >= a.MinCPUs && (c < a.MinCPUs || c > a.MaxCPUs) {
		v.add("sut.resources.cpus", fmt.Sprint(c), fmt.Sprintf(
			"must be within autoscale's min_cpus and max_cpus (%g to %g): the quota the policy starts from", a.MinCPUs, a.MaxCPUs))
	}
}
