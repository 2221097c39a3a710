// Package interfere puts noise and faults on a run's timeline (Zhang et
// al. 2025, section II-E: node failures injected during the workload; EDB
// 2026: a CPU hog beside PostgreSQL). Each kind is a file of its own,
// registered by name like the load shapes; the spec's interference list is
// decoded here with spec.Decoder, checked at plan time against the run's
// servers and workload phase (check.go), and injected during the workload
// phase through the provider's capabilities (runner.go), never through a
// provider's internals.
package interfere

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Path is where the events are written in a spec.
const Path = "interference"

// Kind is one kind of interference.
type Kind interface {
	Name() string
	// Keys are the params the kind reads (params: {...}).
	Keys() []string
	// Parse reads the event's params at path (n may be nil: none written)
	// and returns them; problems go to d.
	Parse(d *spec.Decoder, n *yaml.Node, path string) Params
	// Lasts says an occurrence lasts the event's duration (noise, a
	// freeze), which it then needs; otherwise it is an instant.
	Lasts() bool
	// Fault says the kind interrupts the service of its target's tenants:
	// F and R are measured after it.
	Fault() bool
	// Host says the kind may target the host rather than a server.
	Host() bool
	// Inject runs one occurrence on t and returns when it is over (a
	// lasting kind after o.Duration or when ctx ends), with what it saw.
	Inject(ctx context.Context, o *Occurrence) (Observed, error)
}

// Params are a kind's decoded params; String is how events.csv shows
// them ("load=40%").
type Params interface{ String() string }

// Observed is what an occurrence measured, beyond its times.
type Observed struct {
	// Down is when the target stopped serving (a restart's shutdown
	// done); zero when not known or not applicable. F counts from the
	// later of the injection and Down.
	Down time.Time
	// Ready is when the target served again as far as the fault itself
	// knows (a restarted server accepting connections); zero when not
	// applicable.
	Ready time.Time
	// Note says what else was seen, for events.csv ("log: redo done in
	// 0.12 s", "achieved 39.2% of 2 CPUs").
	Note string
	// Requested and Achieved are a noise's load, in its own unit
	// (percent of the target's CPUs); 0 when not applicable.
	Requested, Achieved float64
	// Promoted is the replica a fail-over promoted, "" for none;
	// Promotion how long its promotion took by its log (from the promote
	// request to accepting connections), 0 when not known.
	Promoted  string
	Promotion time.Duration
}

var kinds = map[string]Kind{}

// register adds a kind; each kind's file calls it from init.
func register(k Kind) {
	if _, dup := kinds[k.Name()]; dup {
		panic("interference kind registered twice: " + k.Name())
	}
	kinds[k.Name()] = k
}

// Names are the registered kinds, sorted.
func Names() []string { return slices.Sorted(maps.Keys(kinds)) }

// Lookup is the kind named name.
func Lookup(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Event is one element of the interference list.
type Event struct {
	Path string // "interference[0]"
	Kind Kind
	// At is the first occurrence, since the workload phase started
	// (warmup included); Every repeats it (0: once) up to Until (0: the
	// end of the phase); Duration is how long each occurrence lasts.
	At, Every, Until, Duration time.Duration
	// Target is "host", "driver", a server by name, or a tenant (its
	// server, or for kill-backends its own sessions).
	Target string
	Params Params
}

// Off says the event does not run: its params ask for nothing (a cpu
// load of 0). Its occurrences are neither injected nor recorded.
func (ev *Event) Off() bool {
	o, ok := ev.Params.(offable)
	return ok && o.off()
}

// offable is the params of a kind that a value can turn off.
type offable interface{ off() bool }

// HostTarget targets the machine rather than a server.
const HostTarget = "host"

// DriverTarget targets tenantbench's own workload clients: noise beside
// the driver's cgroup shares the CPUs its clients run on (EDB 2026's
// remote case, where a saturated client host throttled pgbench).
const DriverTarget = "driver"

// TargetsDriver says whether an event targets the driver: the run then
// puts its driver in a cgroup of its own (Env.Driver) for the workload
// phase.
func TargetsDriver(events []Event) bool {
	for _, ev := range events {
		if ev.Target == DriverTarget {
			return true
		}
	}
	return false
}

// Parse reads the interference list (a null node: none).
func Parse(n *yaml.Node) ([]Event, []spec.Problem) {
	d := spec.NewDecoder()
	var events []Event
	d.Seq(n, Path, "events (mappings with kind, at, target...)", func(e *yaml.Node, path string) {
		ev := Event{Path: path}
		var kind string
		var params *yaml.Node
		var kindNode *yaml.Node
		dur := func(dst *time.Duration) func(n *yaml.Node, p string) {
			return func(n *yaml.Node, p string) {
				var v spec.Duration
				if spec.Scalar(d, n, p, spec.ReadDuration, &v) {
					if v < 0 {
						d.Refuse(n, p, "must not be negative")
					}
					*dst = v.D()
				}
			}
		}
		d.Mapping(e, path, []spec.Field{
			{Key: "kind", Read: func(n *yaml.Node, p string) {
				kindNode = n
				spec.Scalar(d, n, p, spec.ReadOneOf(Names()...), &kind)
			}},
			{Key: "at", Read: dur(&ev.At)},
			{Key: "every", Read: dur(&ev.Every)},
			{Key: "until", Read: dur(&ev.Until)},
			{Key: "duration", Read: dur(&ev.Duration)},
			{Key: "target", Read: func(n *yaml.Node, p string) { spec.Scalar(d, n, p, spec.ReadText, &ev.Target) }},
			{Key: "params", Read: func(n *yaml.Node, p string) { params = n }},
		})
		k, ok := kinds[kind]
		if !ok {
			if kindNode == nil && !spec.IsNull(e) {
				d.Report(spec.Problem{Path: path + ".kind", Allowed: "is needed: one of " + fmt.Sprint(Names())})
			}
			return
		}
		ev.Kind = k
		ev.Params = k.Parse(d, params, path+".params")
		events = append(events, ev)
	})
	return events, d.Problems()
}
