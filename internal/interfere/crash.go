package interfere

import (
	"context"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// crash kills every process of the server at once (SIGKILL of the
// postmaster and its backends) and starts it again: crash recovery from
// the WAL, the failure a restart's clean shutdown avoids.
type crash struct{}

func init() { register(crash{}) }

func (crash) Name() string   { return "crash" }
func (crash) Keys() []string { return []string{"window", "fraction"} }
func (crash) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	return parseFault(d, n, path)
}
func (crash) Lasts() bool { return false }
func (crash) Fault() bool { return true }
func (crash) Host() bool  { return false }

func (crash) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	return restartServer(ctx, o, true)
}
