package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
)

// Factory makes one kind of provider (sut.provider names it).
type Factory struct {
	Name string
	// New prepares a provider for a run.
	New func() (Provider, error)
	// StopRecord stops a server an earlier tenantbench process kept up
	// (`tenantbench down`); nil when the provider keeps none.
	StopRecord func(ctx context.Context, r Record) error
	// Clones says the provider's servers can be copied while stopped
	// (its providers are Cloners), which the plan needs to know before
	// any provider exists.
	Clones bool
	// Servers says the provider starts no server: it places the run's
	// instances on the servers the spec names (sut.servers), one per
	// instance, and CheckServer says at plan what is wrong with one (its
	// variable unset, the server unreachable, privileges missing), ""
	// when nothing is.
	Servers     bool
	CheckServer func(ctx context.Context, eng engine.Engine, s Server) string
	// Pools says the provider can start a connection pooler in front of
	// each server (its instances are provider.Pooler): sut.pooler needs
	// it.
	Pools bool
	// Replicates says the provider can give its servers hot standbys
	// (its instances are provider.Replicated): sut.replicas needs it.
	Replicates bool
	// Networks says the provider can place its servers behind an
	// emulated link (it is a Networker): sut.network needs it.
	Networks bool
	// Storage says at plan why the provider cannot put its servers'
	// data directories on sut.storage's kind and volume ("" when it
	// can); nil for a provider that starts no server, which refuses
	// every storage but the default (disk, shared).
	Storage func(kind, volume string) string
	// Cores says at plan why the provider cannot place its servers on
	// given cores (InstanceSpec.Cores; sut.resources.cpu_policy), ""
	// when it can; nil for a provider that cannot.
	Cores func() string
	// Resizes says at plan why the provider cannot change its servers'
	// CPU and memory limits while they run (its instances are Resizers;
	// sut.resources.schedule and autoscale), "" when it can; nil for a
	// provider that cannot.
	Resizes func() string
	// Cluster says the provider runs its servers in a Kubernetes cluster
	// that sut.kubernetes names, and CheckCluster says at plan what is
	// wrong with it (its variable unset, the cluster unreachable, rights
	// missing in the namespace, too few nodes for servers that must be
	// on distinct ones), "" when nothing is; servers is the most servers
	// a run of the spec starts.
	Cluster      bool
	CheckCluster func(ctx context.Context, c Cluster, servers int) string
	// Engine says at plan why the provider cannot run a server of eng
	// ("" when it can); nil for a provider that takes any engine it is
	// given (the local provider runs an engine.Server; external asks each
	// server, CheckServer).
	Engine func(eng engine.Engine) string
	// Can says at plan why the provider's instances lack c ("" when they
	// have it); nil for a provider whose instances have every
	// Capability.
	Can func(c Capability) string
}

// Registry is the set of known providers, by name. An explicit value, not
// a package global: package providers builds the builtin one.
type Registry map[string]Factory

// Add registers f, refusing a duplicate name.
func (r Registry) Add(f Factory) {
	if _, dup := r[f.Name]; dup {
		panic("provider registered twice: " + f.Name)
	}
	r[f.Name] = f
}

// Names are the registered providers' names, sorted: what sut.provider
// may be.
func (r Registry) Names() []string {
	return slices.Sorted(maps.Keys(r))
}

// Get is the provider named name, or an error listing those there are.
func (r Registry) Get(name string) (Factory, error) {
	if f, ok := r[name]; ok {
		return f, nil
	}
	return Factory{}, fmt.Errorf("provider %q is not known (known: %s)", name, strings.Join(r.Names(), ", "))
}

// New makes the provider named name.
func (r Registry) New(name string) (Provider, error) {
	f, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	return f.New()
}
