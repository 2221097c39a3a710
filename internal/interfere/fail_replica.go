package interfere

import (
	"context"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// failReplica is an RO node's failure: one replica of the server is
// restarted in place (a fast shutdown, or with crash every process
// killed), its readers moving on to the other nodes meanwhile and back
// once it is up.
type failReplica struct{ fault }

func init() { register(failReplica{}) }

func (failReplica) Name() string   { return "fail-replica" }
func (failReplica) Keys() []string { return []string{"window", "fraction", "replica", "crash"} }
func (failReplica) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	return parseReplicaParams(d, n, path, "replica", "the replica to fail, in the order they were made (default 1)", true)
}

func (failReplica) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	inst := o.Target.Server
	_, k := failReplica{}.replicaIndex(o.Event.Params)
	rs := provider.ReplicasOf(inst)
	if k > len(rs) {
		return Observed{}, fmt.Errorf("server %s has %d replicas: no replica %d", inst.Name, len(rs), k)
	}
	r := rs[k-1]
	rr, ok := provider.As[provider.Restarter](r)
	if !ok {
		return Observed{}, fmt.Errorf("replica %s cannot be restarted by its provider", r.Name)
	}
	mark := logSize(r.LogFile)
	down, err := rr.Restart(ctx, o.Event.Params.(replicaParams).crash)
	ob := Observed{Down: down, Ready: time.Now(), Note: "replica " + r.Name}
	if err != nil {
		return ob, err
	}
	if acc := serverAccount(r.LogFile, mark, &ob); acc != "" {
		ob.Note += "; " + acc
	}
	return ob, nil
}
