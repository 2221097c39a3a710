package spec

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/load"
)

// LoadShape is workload.load: the load shape and the
// keys of every shape (load.Settings); a shape's keys are refused with
// another shape. The shapes are those of internal/load.
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

// settings is l as the load shapes read it.
func (l *LoadShape) settings() load.Settings {
	return load.Settings{Shape: l.Shape, Think: l.Think.D(), Rate: l.Rate, Arrivals: l.Arrivals, Pool: l.Pool, OnFull: l.OnFull}
}

// shownValue is the value written at key (below workload, as a shape's
// load.Issue names it) for a Problem.
func (l *LoadShape) shownValue(key string) string {
	switch key {
	case "load.think":
		return l.Think.String()
	case "load.pool":
		return fmt.Sprint(l.Pool)
	case "load.arrivals":
		return shown(l.Arrivals)
	case "load.on_full":
		return shown(l.OnFull)
	}
	return ""
}

// listValue is the list written at key (below workload).
func (l *LoadShape) listValue(key string) []float64 {
	if key == "load.rate" {
		return l.Rate
	}
	return nil
}

// set writes back settings a shape filled in.
func (l *LoadShape) set(s load.Settings) {
	l.Shape, l.Think, l.Rate, l.Arrivals, l.Pool, l.OnFull = s.Shape, Duration(s.Think), s.Rate, s.Arrivals, s.Pool, s.OnFull
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

// defaultSlot is the default of a schedule's or pattern's slot, filled in
// when the section is written (a shape fills its own keys' defaults).
const defaultSlot = Duration(60 * time.Second) // Zhang et al. 2025, section II-C: "we specify a minute as a time slot"

// load reads workload.load.
func (d *Decoder) load(n *yaml.Node, path string, l *LoadShape) {
	d.Mapping(n, path, []Field{
		{"shape", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &l.Shape) }},
		{"think", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &l.Think) }},
		{"rate", func(n *yaml.Node, p string) { values(d, n, p, ReadFloat, load.RateRule, (*[]float64)(&l.Rate)) }},
		{"arrivals", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &l.Arrivals) }},
		{"pool", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadInt, &l.Pool) }},
		{"on_full", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadText, &l.OnFull) }},
	})
	if sh, ok := load.ShapeOf(l.Shape); ok {
		st := l.settings()
		sh.Defaults(&st)
		l.set(st)
	}
}

// levels reads a list of numbers; a single number is a list of one. When
// some element cannot be read, dst becomes an empty list: the key was
// given, and the problem is reported once, at the element.
func (d *Decoder) levels(n *yaml.Node, path string, dst *Levels) {
	if IsNull(n) {
		return
	}
	var v []float64
	if values(d, n, path, ReadFloat, levelRule, &v) {
		*dst = v
		return
	}
	*dst = Levels{}
	d.failed[path] = true
}

func (d *Decoder) stages(n *yaml.Node, path string, dst *[]Stage) {
	out := []Stage{}
	d.Seq(n, path, "stages ({duration: 30s, target: 10})", func(e *yaml.Node, p string) {
		var st Stage
		d.Mapping(e, p, []Field{
			{"duration", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &st.Duration) }},
			{"target", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &st.Target) }},
		})

		out = append(out, st)
	})

	if !IsNull(n) {
		*dst = out
	}
}

func (d *Decoder) sinusoid(n *yaml.Node, path string, dst **Sinusoid) {
	if IsNull(n) {
		return
	}
	s := &Sinusoid{}
	d.Mapping(n, path, []Field{
		{"mean", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &s.Mean) }},
		{"amplitude", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadFloat, &s.Amplitude) }},
		{"period", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Period) }},
		{"shift", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Shift) }},
	})

	*dst = s
}

// schedule reads workload.schedule.
func (d *Decoder) schedule(n *yaml.Node, path string, dst **Schedule) {
	if IsNull(n) {
		return
	}
	s := &Schedule{Slot: defaultSlot}
	d.Mapping(n, path, []Field{
		{"slot", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Slot) }},
		{"slots", func(n *yaml.Node, p string) { d.levels(n, p, &s.Slots) }},
		{"stages", func(n *yaml.Node, p string) { d.stages(n, p, &s.Stages) }},
		{"sinusoid", func(n *yaml.Node, p string) { d.sinusoid(n, p, &s.Sinusoid) }},
		{"start", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Start) }},
		{"stop", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Stop) }},
		{"stagger", func(n *yaml.Node, p string) { Scalar(d, n, p, ReadDuration, &s.Stagger) }},
		{"tenants", func(n *yaml.Node, p string) {
			out := []TenantSchedule{}
			d.Seq(n, p, "per-tenant schedules", func(e *yaml.Node, p string) {
				var t TenantSchedule
				d.Mapping(e, p, []Field{
					{"slots", func(n *yaml.Node, p string) { d.levels(n, p, &t.Slots) }},
					{"stages", func(n *yaml.Node, p string) { d.stages(n, p, &t.Stages) }},
					{"sinusoid", func(n *yaml.Node, p string) { d.sinusoid(n, p, &t.Sinusoid) }},
					{"start", func(n *yaml.Node, p string) { d.optDuration(n, p, &t.Start) }},
					{"stop", func(n *yaml.Node, p string) { d.optDuration(n, p, &t.Stop) }},
				})

				out = append(out, t)
			})

			if !IsNull(n) {
				s.Tenants = out
			}
		}},
	})

	*dst = s
}

func (d *Decoder) optDuration(n *yaml.Node, path string, dst **Duration) {
	var v Duration
	ok := false
	Scalar(d, n, path, func(n *yaml.Node) (Duration, string) {
		x, msg := ReadDuration(n)
		ok = msg == ""
		return x, msg
	}, &v)
	if ok {
		*dst = &v
	}
}

// pattern reads workload.pattern.
func (d *Decoder) pattern(n *yaml.Node, path string, dst **Pattern) {
	if IsNull(n) {
		return
	}
	p := &Pattern{Slot: defaultSlot, Slots: defaultPatternSlots, Delta: defaultDelta}
	d.Mapping(n, path, []Field{
		{"name", func(n *yaml.Node, q string) { values(d, n, q, ReadText, patternRule, (*[]string)(&p.Name)) }},
		{"tau", func(n *yaml.Node, q string) { Scalar(d, n, q, ReadFloat, &p.Tau) }},
		{"slot", func(n *yaml.Node, q string) { Scalar(d, n, q, ReadDuration, &p.Slot) }},
		{"slots", func(n *yaml.Node, q string) { Scalar(d, n, q, ReadInt, &p.Slots) }},
		{"delta", func(n *yaml.Node, q string) { Scalar(d, n, q, ReadFloat, &p.Delta) }},
		{"shares", func(n *yaml.Node, q string) { d.levels(n, q, &p.Shares) }},
		{"levels", func(n *yaml.Node, q string) { d.levels(n, q, &p.Levels) }},
		{"tenants", func(n *yaml.Node, q string) {
			out := []Levels{}
			d.Seq(n, q, "lists of levels (one list per tenant)", func(e *yaml.Node, q string) {
				var l Levels
				d.levels(e, q, &l)
				out = append(out, l)
			})

			if !IsNull(n) {
				p.Tenants = out
			}
		}},
	})

	*dst = p
}
