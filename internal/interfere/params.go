package interfere

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// faultParams are a fault's params: what "throughput is back" means for
// its R (metrics.Recovery): the mean of the window seconds before the
// fault, and the fraction of it to reach.
type faultParams struct{ Recovery metrics.Recovery }

func (p faultParams) String() string {
	return fmt.Sprintf("window=%ds;fraction=%g", p.Recovery.Window, p.Recovery.Fraction)
}

// recovered is the definition of recovery an event's params give.
type recovered interface{ recovery() metrics.Recovery }

func (p faultParams) recovery() metrics.Recovery { return p.Recovery }

// fault is embedded by the kinds that interrupt the service of a
// server's tenants, so that F and R are measured after each occurrence:
// each targets a server (never the host) and happens at an instant. A
// fault that lasts (freeze) says so with a Lasts of its own.
type fault struct{}

func (fault) Fault() bool { return true }
func (fault) Host() bool  { return false }
func (fault) Lasts() bool { return false }

// recoveryOnly is embedded by a fault whose params are R's window and
// fraction and nothing else; a fault with keys of its own (fail-primary,
// fail-replica) writes its Keys and Parse instead.
type recoveryOnly struct{}

func (recoveryOnly) Keys() []string { return []string{"window", "fraction"} }
func (recoveryOnly) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	return parseFault(d, n, path)
}

// parseFault reads a fault's params: window (a duration of whole
// seconds, 1s to 10m) and fraction (above 0, at most 1).
func parseFault(d *spec.Decoder, n *yaml.Node, path string) Params {
	p := faultParams{Recovery: metrics.DefaultRecovery}
	d.Mapping(n, path, faultFields(d, &p))
	return p
}

// faultFields read a fault's window and fraction into p, for a kind
// whose params add keys of their own.
func faultFields(d *spec.Decoder, p *faultParams) []spec.Field {
	window := spec.Where(spec.ReadDuration, func(v spec.Duration) bool {
		return v.D() >= time.Second && v.D() <= 10*time.Minute && v.D()%time.Second == 0
	}, "must be whole seconds from 1s to 10m: the seconds before the fault whose mean throughput R aims at")
	fraction := spec.Where(spec.ReadFloat, func(f float64) bool { return f > 0 && f <= 1 },
		"must be above 0 and at most 1: the share of the throughput before the fault that counts as recovered")
	return []spec.Field{
		{Key: "window", Read: func(n *yaml.Node, p2 string) {
			var v spec.Duration
			if spec.Scalar(d, n, p2, window, &v) {
				p.Recovery.Window = int(v.D() / time.Second)
			}
		}},
		{Key: "fraction", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, fraction, &p.Recovery.Fraction) }},
	}
}
