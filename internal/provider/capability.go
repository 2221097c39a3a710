package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/pooler"
)

// Capabilities: what callers may ask of a provider or an instance beyond
// connecting. Each is a small interface; a provider implements those it
// can, and a caller asks (As for an instance's, a type assertion for a
// provider's) and says what it does without one.

// As returns the instance's capability T, if its provider gave it one.
func As[T any](i *Instance) (T, bool) {
	c, ok := i.Control.(T)
	return c, ok
}

// ResourceSampler is what the monitor needs to sample a server's
// resources on this machine.
type ResourceSampler interface {
	// ProcessRoot is the server's root process (PostgreSQL: the
	// postmaster), the parent of every process it starts.
	ProcessRoot() int
	// Cgroup is the server's cgroup path below the hierarchy root
	// ("/tenantbench/<run>/<name>", "" when none could be made) and the
	// cgroup version ("v1", "v2" or "none").
	Cgroup() (path, mode string)
}

// CgroupOf is i's cgroup and its mode, "" and "none" when it has none.
func CgroupOf(i *Instance) (path, mode string) {
	if s, ok := As[ResourceSampler](i); ok {
		return s.Cgroup()
	}
	return "", "none"
}

// UsageSampler is a server whose CPU and memory are measured by what
// runs it, not read from this machine's processes and cgroups (a pod's,
// by its node's kubelet): the monitor asks it at each round.
type UsageSampler interface {
	// Usage is the server's resources as its source last measured them;
	// a zero Usage.At and no error while the source has no measurement
	// yet.
	Usage(ctx context.Context) (Usage, error)
	// UsageSource names the source, for the monitor's metadata
	// ("kubelet stats/summary").
	UsageSource() string
}

// Usage is a server's resources as a UsageSampler's source measured them.
type Usage struct {
	CPUSeconds  float64   // CPU time since the server started
	MemoryBytes int64     // memory in use (a container's working set), -1 when not measured
	At          time.Time // when the source measured them
}

// Unsampled is a server whose CPU and memory this machine does not
// sample (it has no ResourceSampler): Unsampled says why, as the results
// put it ("not measured (...)").
type Unsampled interface {
	Unsampled() string
}

// Storage is a server whose data on disk can be measured.
type Storage interface {
	// StorageBytes is the size of the server's data files.
	StorageBytes() (int64, error)
}

// Remover is a provider whose stopped servers hold what Stop keeps and
// the run must give back before it removes its work directory (file
// systems mounted for their data: sut.storage). The run calls Remove
// after Stop, at teardown.
type Remover interface {
	Remove(ctx context.Context, i *Instance) error
}

// Limits is a server run under resource limits.
type Limits interface {
	// Limits are the CPUs (0 = none) and memory bytes (0 = none) the
	// server was given, and whether they are in force.
	Limits() (cpus float64, memoryBytes int64, enforced bool)
}

// Resizer is a server whose CPU quota and memory limit can be changed
// while it runs, as a serverless database scales (sut.resources.schedule
// and autoscale). Limits keeps saying what the server was started with;
// the run records each change (limits.csv).
type Resizer interface {
	// Resize puts the server under cpus CPUs and memoryBytes of memory
	// (0: no limit) from now on.
	Resize(cpus float64, memoryBytes int64) error
	// CPUSeconds is the CPU time the server's processes have used so
	// far, from which a policy measures their utilization of the quota.
	CPUSeconds() (float64, error)
}

// Killer is a server that can be killed at once (a crash: the server
// recovers from its WAL when started again).
type Killer interface {
	Kill() error
}

// Freezer is a server that can be stopped in its tracks and resumed: its
// processes neither run nor answer meanwhile, as on a stalled host.
type Freezer interface {
	Freeze() error
	Thaw() error
}

// Restarter is a server that can be shut down and started again in place
// while a run goes on: the same Instance, endpoint, data and cgroup, so
// that clients reconnect to the address they had. Its Exited stays open
// across a restart: only an end nobody asked for closes it.
type Restarter interface {
	// Restart stops the server and starts it again on its data. crash
	// false is a fast shutdown (the restart of Zhang et al. 2025, section
	// II-E); crash true kills every process of it at once (SIGKILL), so
	// that the start recovers from the WAL. down is when no process of the
	// old server was left; Restart returns once the server accepts
	// connections again.
	Restart(ctx context.Context, crash bool) (down time.Time, err error)
}

// Cloner is a provider that copies a stopped server: each copy a server
// of its own on the same data, started as s says.
type Cloner interface {
	// Clone starts a new server on a copy of src's data; src must have
	// been stopped. copied is how long the copy of the data took.
	Clone(ctx context.Context, src *Instance, s InstanceSpec) (inst *Instance, copied time.Duration, err error)
	// Restart starts a stopped server again on its data, as a new
	// Instance.
	Restart(ctx context.Context, inst *Instance) (*Instance, error)
}

// Recorder is a server that `tenantbench down` can find again from its
// Record: it fills in what it needs beyond the name and endpoint.
type Recorder interface {
	Record(r *Record)
}

// Borrowed is a server tenantbench did not start and does not own (the
// user's, provider external): it must never touch an object it did not
// create there. Every name it creates begins with Prefix, and it tells
// Created of each object before creating it, so that the ledger lists
// it even if tenantbench dies in between, and the object is dropped with
// the instance.
type Borrowed interface {
	Prefix() string
	Created(o Object)
}

// PrefixOf is the prefix of the names created on i: Borrowed's, "" for a
// server tenantbench started (it owns every name there).
func PrefixOf(i *Instance) string {
	if b, ok := As[Borrowed](i); ok {
		return b.Prefix()
	}
	return ""
}

// NoteCreated tells a borrowed instance of an object about to be created
// on it; a server tenantbench started needs no list (it goes whole).
func NoteCreated(i *Instance, o Object) {
	if b, ok := As[Borrowed](i); ok {
		b.Created(o)
	}
}

// Pooler is a server the provider can put a connection pooler in front
// of: a process of its own, in a cgroup of its own, stopped with the
// server.
type Pooler interface {
	// StartPooler starts the pooler c asks for, letting in the roles of
	// secrets ("role verifier" lines, engine.Pooled's SecretsQuery), and
	// sets the instance's Pool.
	StartPooler(ctx context.Context, c pooler.Config, secrets []string) (*Pool, error)
	// PoolerCgroup is the pooler's cgroup and its mode, "" and "none"
	// when it has none or runs none.
	PoolerCgroup() (path, mode string)
	// PoolerStats are the pooler's pools now, read from the pooler
	// itself (pgbouncer's admin console); nil and no error when no
	// pooler runs.
	PoolerStats(ctx context.Context) ([]pooler.PoolStat, error)
}

// Pool is a running pooler as its clients see it.
type Pool struct {
	Endpoint
	pooler.Config
	Version string // the pooler program's, "1.18.0"
	// NamedStatements says a client's named prepared statements survive
	// between its transactions; else its statements run unnamed.
	NamedStatements bool
}

// Networker is a provider that can place a run's servers behind an
// emulated network link (sut.network): Network makes the namespace and
// its link, telling note of each part before making it (the run's
// ledger); the run gives it to each InstanceSpec and removes it once
// its servers have stopped.
type Networker interface {
	Network(ctx context.Context, runID string, link netns.Link, note func(netns.Record)) (*netns.Net, error)
}

// Capability is something a provider's instances can be made to undergo
// that the plan must know of before any instance exists (Factory.Can):
// the interference a spec lists needs it of the servers it targets.
type Capability int

const (
	// CanRestart: the instances are Restarters (restart, crash).
	CanRestart Capability = iota + 1
	// CanFreeze: the instances are Freezers (freeze).
	CanFreeze
	// InCgroup: the server's processes are in a cgroup of this machine
	// (ResourceSampler), which noise aimed at the server joins or runs
	// beside.
	InCgroup
	// CanFailOver: the instances are FailOvers (fail-primary).
	CanFailOver
)

// String says what c is, for a problem at plan.
func (c Capability) String() string {
	switch c {
	case CanRestart:
		return "restart or crash a server in place"
	case CanFreeze:
		return "freeze a server"
	case InCgroup:
		return "run noise beside or inside a server's cgroup"
	case CanFailOver:
		return "kill a server and promote one of its replicas in its place"
	}
	return fmt.Sprintf("capability %d", int(c))
}

// Replicated is a server that can be given hot standbys (sut.replicas):
// copies of it, each a server of its own (endpoint, process, cgroup with
// the primary's limits, ledger record), that follow its changes and
// answer reads. They are part of the primary: the provider stops them
// when it stops the primary, whatever the path (Stop, down).
type Replicated interface {
	// StartReplicas starts n standbys of the running server, named
	// "<primary>-r1".."<primary>-rn", and returns once each is
	// streaming; sync makes every commit on the primary wait for all of
	// them. On error none of the new ones is left.
	StartReplicas(ctx context.Context, n int, sync bool) ([]*Instance, error)
	// Replicas are the standbys started so far, in order.
	Replicas() []*Instance
}

// FailOver is a server with standbys one of which can take its place
// when it dies: the fail-primary fault (Zhang et al. 2025, section II-E,
// an RW node's failure). One call, not a Promote and a Repoint for the
// caller to order: the steps must follow each other, and what moves with
// them (the slots, the pooler, which server stops which at teardown) is
// the provider's.
type FailOver interface {
	// FailOver kills the server at once (SIGKILL of every process),
	// promotes its standby number promote (1-based; 0: the one that
	// received the most WAL, which the others can then follow), puts the
	// pooler in front of the server in front of the promoted one, and
	// calls moved with it as soon as it accepts writes (the run moves
	// the tenants' endpoint there). It then points the other standbys
	// at it, a replication slot each there, and returns once they stream
	// from it: the promoted instance is a primary whose Replicas they
	// are, and the dead server's Stop stops none of them. down is when
	// no process of the killed server was left. On error after the
	// kill, promoted is what was promoted, nil if none was.
	FailOver(ctx context.Context, promote int, moved func(promoted *Instance)) (promoted *Instance, down time.Time, err error)
}

// Standby is a hot standby of another instance (Replicated.StartReplicas).
type Standby interface {
	// PrimaryOf is the instance the standby follows, nil for a server
	// that is no standby.
	PrimaryOf() *Instance
}

// Role is "replica" for a standby, "primary" for any other server: the
// role column of the monitor's files.
func Role(i *Instance) string {
	if s, ok := As[Standby](i); ok && s.PrimaryOf() != nil {
		return "replica"
	}
	return "primary"
}

// ReplicasOf are i's standbys, none for a server without.
func ReplicasOf(i *Instance) []*Instance {
	if r, ok := As[Replicated](i); ok {
		return r.Replicas()
	}
	return nil
}
