package interfere

import (
	"context"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// freeze stops every process of the server (SIGSTOP) for the event's
// duration, then resumes them (SIGCONT): a stalled host, whose clients'
// connections stay open and wait.
type freeze struct{}

func init() { register(freeze{}) }

func (freeze) Name() string   { return "freeze" }
func (freeze) Keys() []string { return []string{"window", "fraction"} }
func (freeze) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	return parseFault(d, n, path)
}
func (freeze) Lasts() bool { return true }
func (freeze) Fault() bool { return true }
func (freeze) Host() bool  { return false }
func (freeze) exclusive()  {}

// Inject thaws the server also when the phase ends during the freeze:
// a server left stopped would hang the rest of the run.
func (freeze) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	inst := o.Target.Server
	f, ok := provider.As[provider.Freezer](inst)
	if !ok {
		return Observed{}, fmt.Errorf("server %s cannot be frozen by its provider", inst.Name)
	}
	if err := f.Freeze(); err != nil {
		_ = f.Thaw() // some processes may have stopped
		return Observed{}, err
	}
	ob := Observed{Down: time.Now()}
	sleep(ctx, o.Event.Duration)
	err := f.Thaw()
	ob.Ready = time.Now()
	ob.Note = fmt.Sprintf("frozen %.3f s", ob.Ready.Sub(ob.Down).Seconds())
	return ob, err
}
