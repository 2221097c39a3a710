package interfere

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// restart is the restart model of Zhang et al. 2025, section II-E: the
// server is shut down (fast: open transactions are rolled back, then a
// checkpoint) and started again on its data, where its clients find it.
type restart struct {
	fault
	recoveryOnly
}

func init() { register(restart{}) }

func (restart) Name() string { return "restart" }

func (restart) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	return restartServer(ctx, o, false)
}

// restartServer restarts (or, crash, kills and starts) the occurrence's
// server through its provider's Restarter, and reads the server's own
// account of it from its log.
func restartServer(ctx context.Context, o *Occurrence, crash bool) (Observed, error) {
	inst := o.Target.Server
	r, ok := provider.As[provider.Restarter](inst)
	if !ok {
		return Observed{}, fmt.Errorf("server %s cannot be restarted by its provider", inst.Name)
	}
	mark := logSize(inst.LogFile)
	down, err := r.Restart(ctx, crash)
	ob := Observed{Down: down, Ready: time.Now()}
	if err != nil {
		return ob, err
	}
	ob.Note = serverAccount(inst.LogFile, mark, &ob)
	return ob, nil
}
