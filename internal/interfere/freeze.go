package interfere

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// freeze stops every process of the server (SIGSTOP) for the event's
// duration, then resumes them (SIGCONT): a stalled host, whose clients'
// connections stay open and wait.
type freeze struct {
	fault
	recoveryOnly
}

func init() { register(freeze{}) }

func (freeze) Name() string { return "freeze" }

// Lasts: unlike the other faults, a freeze holds the server for the
// event's duration.
func (freeze) Lasts() bool { return true }
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
