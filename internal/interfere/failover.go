package interfere

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// The fail-over faults of Zhang et al. 2025, section II-E: the failure of
// the RW node (fail-primary: a replica promoted in its place) and of an
// RO node (fail-replica). They act on a server with replicas
// (sut.replicas), which the plan checks (replicaKind).

// replicaKind is a fault that needs replicas of its target server: the
// plan refuses it on a server without, and an index its params name
// beyond the replicas there are.
type replicaKind interface {
	// replicaIndex is the params' key naming a replica and its value
	// (1-based; 0: none named).
	replicaIndex(p Params) (key string, index int)
	// usesUp says each occurrence takes a replica away (a promotion):
	// a server cannot fail over more often than it has replicas.
	usesUp() bool
}

// Promotes says ev promotes a replica: the plan then asks the engine
// whether its replicas can be (engine.Promoter).
func Promotes(ev *Event) bool {
	k, ok := ev.Kind.(replicaKind)
	return ok && k.usesUp()
}

// replicaParams are a fail-over fault's params: R's recovery, which
// replica it acts on, and for fail-replica whether it is killed.
type replicaParams struct {
	faultParams
	key   string // "promote" or "replica"
	index int    // 1-based; 0: none named
	crash bool
}

func (p replicaParams) String() string {
	s := p.faultParams.String()
	if p.index > 0 {
		s += fmt.Sprintf(";%s=%d", p.key, p.index)
	}
	if p.crash {
		s += ";crash=true"
	}
	return s
}

// parseReplicaParams reads window and fraction, the replica's index
// under key, and crash when withCrash.
func parseReplicaParams(d *spec.Decoder, n *yaml.Node, path, key, meaning string, withCrash bool) Params {
	p := replicaParams{faultParams: faultParams{Recovery: metrics.DefaultRecovery}, key: key}
	fields := faultFields(d, &p.faultParams)
	index := spec.Where(spec.ReadInt, func(i int) bool { return i >= 1 }, "must be 1 or more: "+meaning)
	fields = append(fields, spec.Field{Key: key, Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, index, &p.index) }})
	if withCrash {
		fields = append(fields, spec.Field{Key: "crash", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, spec.ReadBool, &p.crash) }})
	}
	d.Mapping(n, path, fields)
	return p
}

func (failPrimary) replicaIndex(p Params) (string, int) {
	rp := p.(replicaParams)
	return rp.key, rp.index
}
func (failPrimary) usesUp() bool { return true }

func (failReplica) replicaIndex(p Params) (string, int) {
	rp := p.(replicaParams)
	return rp.key, max(rp.index, 1)
}
func (failReplica) usesUp() bool { return false }

func (failPrimary) needs() provider.Capability { return provider.CanFailOver }
func (failReplica) needs() provider.Capability { return provider.CanRestart }
