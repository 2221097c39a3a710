package interfere

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// cpu is a CPU hog beside the target (EDB 2026: stress at 0/30/40 %
// next to PostgreSQL): stress-ng workers loading a percent of the
// target's CPUs (its limit, or the host's CPUs).
type cpu struct{ noise }

func init() { register(cpu{}) }

type cpuParams struct {
	shareable
	Load float64 // percent of the target's CPUs
}

func (p cpuParams) String() string {
	return fmt.Sprintf("load=%g%%;share=%v", p.Load, p.Share)
}

// off: a load of 0 is no noise (EDB 2026's level 0 beside 30 and 40 %),
// so that a list of loads may start at the undisturbed run.
func (p cpuParams) off() bool { return p.Load == 0 }

func (cpu) Name() string   { return "cpu" }
func (cpu) Keys() []string { return []string{"load", "share"} }

func (cpu) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	p := cpuParams{}
	load := spec.Where(spec.ReadFloat, func(f float64) bool { return f >= 0 && f <= 100 },
		"must be a percent of the target's CPUs from 0 (no noise: the event does not run) to 100")
	written := false
	d.Mapping(n, path, []spec.Field{
		{Key: "load", Read: func(n *yaml.Node, p2 string) { written = true; spec.Scalar(d, n, p2, load, &p.Load) }},
		{Key: "share", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, spec.ReadBool, &p.Share) }},
	})
	if !written {
		d.Report(spec.Problem{Path: path + ".load", Allowed: "is needed: the percent of the target's CPUs the noise loads (e.g. 30)"})
	}
	return p
}

// targetCPUs is what a percent of the target's CPUs refers to: its CPU
// limit, else the host's CPUs.
func targetCPUs(o *Occurrence) float64 {
	if s := o.Target.Server; s != nil {
		if l, ok := provider.As[provider.Limits](s); ok {
			if c, _, enforced := l.Limits(); c > 0 && enforced {
				return c
			}
		}
	}
	return float64(runtime.NumCPU())
}

// Inject runs ceil(cpus) workers, each loading its CPU so that together
// they use load percent of the target's cpus.
func (cpu) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	p := o.Event.Params.(cpuParams)
	cpus := targetCPUs(o)
	workers := int(math.Ceil(cpus))
	per := math.Min(100, p.Load*cpus/float64(workers))
	run, err := runStress(ctx, o, p.Share, []string{"--cpu", fmt.Sprint(workers), "--cpu-load", fmt.Sprintf("%.0f", per)})
	ob := Observed{Requested: p.Load}
	if run.wall > 0 {
		ob.Achieved = 100 * run.cpuS / run.wall.Seconds() / cpus
	}
	ob.Note = fmt.Sprintf("%d workers at %.0f%% in %s; achieved %.1f%% of %g CPUs (%.2f CPU s in %.2f s)",
		workers, per, run.where, ob.Achieved, cpus, run.cpuS, run.wall.Seconds())
	return ob, err
}
