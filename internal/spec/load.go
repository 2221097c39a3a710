package spec

import (
	"time"

	"gopkg.in/yaml.v3"
)

// LoadShape is workload.load: the load shape. The keys of
// one shape are refused with the other.
type LoadShape struct {
	Shape string `yaml:"shape"` // closed (default) or open
	// closed
	Think Duration `yaml:"think,omitempty"` // pause after each transaction
	// open
	Rate     Floats `yaml:"rate,omitempty"`     // arrivals per second per tenant; a list is a dimension
	Arrivals string `yaml:"arrivals,omitempty"` // poisson (default) or uniform
	Pool     int    `yaml:"pool,omitempty"`     // connections in flight at most; 0 = 2 x workload.clients
	OnFull   string `yaml:"on_full,omitempty"`  // queue (default) or drop
}

// Schedule is workload.schedule: how each tenant's target (clients or
// rate) varies over the workload phase. At most one of
// Slots, Stages and Sinusoid; without any, the target is workload.clients
// (closed) or workload.load.rate (open) and only Start, Stop and Stagger
// apply.
type Schedule struct {
	Slot     Duration         `yaml:"slot"`
	Slots    Levels           `yaml:"slots,omitempty"`
	Stages   []Stage          `yaml:"stages,omitempty"`
	Sinusoid *Sinusoid        `yaml:"sinusoid,omitempty"`
	Start    Duration         `yaml:"start,omitempty"`
	Stop     Duration         `yaml:"stop,omitempty"`
	Stagger  Duration         `yaml:"stagger,omitempty"`
	Tenants  []TenantSchedule `yaml:"tenants,omitempty"`
}

// Stage ramps the target linearly to Target over Duration.
type Stage struct {
	Duration Duration `yaml:"duration"`
	Target   float64  `yaml:"target"`
}

// Sinusoid is Mean + Amplitude sin(2 pi (t - i Shift) / Period) for tenant
// i (from 0): the shifted sinus curves of Oracle 2014, Test 4.
type Sinusoid struct {
	Mean      float64  `yaml:"mean"`
	Amplitude float64  `yaml:"amplitude"`
	Period    Duration `yaml:"period"`
	Shift     Duration `yaml:"shift"`
}

// TenantSchedule overrides the schedule for one tenant: the keys it gives
// replace the schedule's (values as a whole: slots, stages or sinusoid).
type TenantSchedule struct {
	Slots    Levels    `yaml:"slots,omitempty"`
	Stages   []Stage   `yaml:"stages,omitempty"`
	Sinusoid *Sinusoid `yaml:"sinusoid,omitempty"`
	Start    *Duration `yaml:"start,omitempty"`
	Stop     *Duration `yaml:"stop,omitempty"`
}

// Pattern is workload.pattern: a CloudyBench pattern built from tau.
// Name may be a list: a dimension of the plan.
type Pattern struct {
	Name    Strings  `yaml:"name"`
	Tau     float64  `yaml:"tau"`
	Slot    Duration `yaml:"slot"`
	Slots   int      `yaml:"slots"` // high- and low-contention
	Delta   float64  `yaml:"delta"` // high- and low-contention, % of tau
	Shares  Levels   `yaml:"shares,omitempty"`
	Levels  Levels   `yaml:"levels,omitempty"`  // custom
	Tenants []Levels `yaml:"tenants,omitempty"` // custom
}

// Levels is a list of numbers, written as a flow list ("[0, 110, 0]").
type Levels []float64

// MarshalYAML writes the list on one line.
func (l Levels) MarshalYAML() (any, error) {
	n := &yaml.Node{}
	v := []float64(l)
	if v == nil {
		v = []float64{}
	}
	err := n.Encode(v)
	n.Style = yaml.FlowStyle
	return n, err
}

// values reports whether s gives values of its own.
func (s *Schedule) values() bool { return s.Slots != nil || s.Stages != nil || s.Sinusoid != nil }

func (t *TenantSchedule) values() bool { return t.Slots != nil || t.Stages != nil || t.Sinusoid != nil }

// Defaults of the load keys that only apply to one shape or one section,
// filled in when the shape or section is written.
const (
	defaultArrivals = "poisson"
	defaultOnFull   = "queue"
	defaultSlot     = Duration(60 * time.Second) // Zhang et al. 2025: "we specify a minute as a time slot"
)

// load reads workload.load.
func (d *decoder) load(n *yaml.Node, path string, l *LoadShape) {
	d.mapping(n, path, []field{
		{"shape", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &l.Shape) }},
		{"think", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &l.Think) }},
		{"rate", func(n *yaml.Node, p string) { values(d, n, p, readFloat, rateRule, (*[]float64)(&l.Rate)) }},
		{"arrivals", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &l.Arrivals) }},
		{"pool", func(n *yaml.Node, p string) { scalar(d, n, p, readInt, &l.Pool) }},
		{"on_full", func(n *yaml.Node, p string) { scalar(d, n, p, readText, &l.OnFull) }},
	})
	if l.Shape == "open" {
		if l.Arrivals == "" {
			l.Arrivals = defaultArrivals
		}
		if l.OnFull == "" {
			l.OnFull = defaultOnFull
		}
	}
}

// levels reads a list of numbers; a single number is a list of one. When
// some element cannot be read, dst becomes an empty list: the key was
// given, and the problem is reported once, at the element.
func (d *decoder) levels(n *yaml.Node, path string, dst *Levels) {
	if isNull(n) {
		return
	}
	var v []float64
	if values(d, n, path, readFloat, levelRule, &v) {
		*dst = v
		return
	}
	*dst = Levels{}
	d.failed[path] = true
}

// seq calls each for every element of a YAML sequence.
func (d *decoder) seq(n *yaml.Node, path, what string, each func(e *yaml.Node, path string)) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.report(Problem{Path: path, Line: n.Line, Value: valueOf(n), Allowed: "must be a list of " + what + ", not " + kindWord(n)})
		return
	}
	for i, e := range n.Content {
		ep := index(path, i)
		if r := resolve(e); r != nil {
			d.lines[ep] = r.Line
		}
		each(e, ep)
	}
}

func (d *decoder) stages(n *yaml.Node, path string, dst *[]Stage) {
	out := []Stage{}
	d.seq(n, path, "stages ({duration: 30s, target: 10})", func(e *yaml.Node, p string) {
		var st Stage
		d.mapping(e, p, []field{
			{"duration", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &st.Duration) }},
			{"target", func(n *yaml.Node, p string) { scalar(d, n, p, readFloat, &st.Target) }},
		})
		out = append(out, st)
	})
	if !isNull(n) {
		*dst = out
	}
}

func (d *decoder) sinusoid(n *yaml.Node, path string, dst **Sinusoid) {
	if isNull(n) {
		return
	}
	s := &Sinusoid{}
	d.mapping(n, path, []field{
		{"mean", func(n *yaml.Node, p string) { scalar(d, n, p, readFloat, &s.Mean) }},
		{"amplitude", func(n *yaml.Node, p string) { scalar(d, n, p, readFloat, &s.Amplitude) }},
		{"period", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Period) }},
		{"shift", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Shift) }},
	})
	*dst = s
}

// schedule reads workload.schedule.
func (d *decoder) schedule(n *yaml.Node, path string, dst **Schedule) {
	if isNull(n) {
		return
	}
	s := &Schedule{Slot: defaultSlot}
	d.mapping(n, path, []field{
		{"slot", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Slot) }},
		{"slots", func(n *yaml.Node, p string) { d.levels(n, p, &s.Slots) }},
		{"stages", func(n *yaml.Node, p string) { d.stages(n, p, &s.Stages) }},
		{"sinusoid", func(n *yaml.Node, p string) { d.sinusoid(n, p, &s.Sinusoid) }},
		{"start", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Start) }},
		{"stop", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Stop) }},
		{"stagger", func(n *yaml.Node, p string) { scalar(d, n, p, readDuration, &s.Stagger) }},
		{"tenants", func(n *yaml.Node, p string) {
			out := []TenantSchedule{}
			d.seq(n, p, "per-tenant schedules", func(e *yaml.Node, p string) {
				var t TenantSchedule
				d.mapping(e, p, []field{
					{"slots", func(n *yaml.Node, p string) { d.levels(n, p, &t.Slots) }},
					{"stages", func(n *yaml.Node, p string) { d.stages(n, p, &t.Stages) }},
					{"sinusoid", func(n *yaml.Node, p string) { d.sinusoid(n, p, &t.Sinusoid) }},
					{"start", func(n *yaml.Node, p string) { d.optDuration(n, p, &t.Start) }},
					{"stop", func(n *yaml.Node, p string) { d.optDuration(n, p, &t.Stop) }},
				})
				out = append(out, t)
			})
			if !isNull(n) {
				s.Tenants = out
			}
		}},
	})
	*dst = s
}

func (d *decoder) optDuration(n *yaml.Node, path string, dst **Duration) {
	var v Duration
	ok := false
	scalar(d, n, path, func(n *yaml.Node) (Duration, string) {
		x, msg := readDuration(n)
		ok = msg == ""
		return x, msg
	}, &v)
	if ok {
		*dst = &v
	}
}

// pattern reads workload.pattern.
func (d *decoder) pattern(n *yaml.Node, path string, dst **Pattern) {
	if isNull(n) {
		return
	}
	p := &Pattern{Slot: defaultSlot, Slots: defaultPatternSlots, Delta: defaultDelta}
	d.mapping(n, path, []field{
		{"name", func(n *yaml.Node, q string) { values(d, n, q, readText, patternRule, (*[]string)(&p.Name)) }},
		{"tau", func(n *yaml.Node, q string) { scalar(d, n, q, readFloat, &p.Tau) }},
		{"slot", func(n *yaml.Node, q string) { scalar(d, n, q, readDuration, &p.Slot) }},
		{"slots", func(n *yaml.Node, q string) { scalar(d, n, q, readInt, &p.Slots) }},
		{"delta", func(n *yaml.Node, q string) { scalar(d, n, q, readFloat, &p.Delta) }},
		{"shares", func(n *yaml.Node, q string) { d.levels(n, q, &p.Shares) }},
		{"levels", func(n *yaml.Node, q string) { d.levels(n, q, &p.Levels) }},
		{"tenants", func(n *yaml.Node, q string) {
			out := []Levels{}
			d.seq(n, q, "lists of levels (one list per tenant)", func(e *yaml.Node, q string) {
				var l Levels
				d.levels(e, q, &l)
				out = append(out, l)
			})
			if !isNull(n) {
				p.Tenants = out
			}
		}},
	})
	*dst = p
}
