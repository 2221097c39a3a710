package interfere

import (
	"context"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// failPrimary is the RW node's failure: the server is killed (SIGKILL of
// every process) and one of its replicas promoted in its place, the
// others following it; the tenants' clients find it through the pooler,
// re-pointed, or through their endpoint, which the run moves (Env.Moved).
type failPrimary struct{ fault }

// logWait bounds the wait for the promoted server's ready line.
const logWait = 2 * time.Second

func init() { register(failPrimary{}) }

func (failPrimary) Name() string   { return "fail-primary" }
func (failPrimary) Keys() []string { return []string{"window", "fraction", "promote"} }
func (failPrimary) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	return parseReplicaParams(d, n, path, "promote",
		"the replica to promote, in the order they were made (default: the one that received the most WAL)", false)
}

func (failPrimary) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	inst := o.Target.Server
	f, ok := provider.As[provider.FailOver](inst)
	if !ok {
		return Observed{}, fmt.Errorf("server %s cannot fail over: its provider cannot promote its replicas", inst.Name)
	}
	marks := map[*provider.Instance]int64{}
	for _, r := range provider.ReplicasOf(inst) {
		marks[r] = logSize(r.LogFile)
	}
	_, index := failPrimary{}.replicaIndex(o.Event.Params)
	var ready time.Time
	promoted, down, err := f.FailOver(ctx, index, func(to *provider.Instance) {
		ready = time.Now()
		o.env.moved(inst, to)
	})
	ob := Observed{Down: down, Ready: ready}
	if promoted == nil {
		return ob, err
	}
	ob.Promoted = promoted.Name
	ob.Note = "promoted " + promoted.Name
	// The postmaster logs its ready line a moment after the server
	// takes writes (when its startup process has exited).
	acc := ""
	for deadline := time.Now().Add(logWait); ; {
		acc = promotionAccount(promoted.LogFile, marks[promoted], &ob)
		if ob.Promotion > 0 || time.Now().After(deadline) || !sleep(ctx, 20*time.Millisecond) {
			break
		}
	}
	if acc != "" {
		ob.Note += "; " + acc
	}
	if n := len(provider.ReplicasOf(promoted)); n > 0 {
		ob.Note += fmt.Sprintf("; %d replicas follow it", n)
	}
	return ob, err
}
