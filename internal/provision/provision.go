// Package provision holds the ways a run's tenants get their servers,
// roles and data, one strategy per file: each tenant loads its own
// (load_each.go), the first tenant loads and the others get a copy of its
// database (clone_database.go) or of its stopped server's data directory
// (clone_datadir.go), or every tenant shares the tables their owner set up
// (shared_tables.go). The run chooses a strategy once (Choose) and calls
// it phase by phase; no other package tests a model's or a strategy's
// name.
package provision

import (
	"context"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// Strategy is how a run provisions its tenants. The run calls the phases
// in order, each once, with every tenant entering a phase together; each
// records its tenants' times in the phase (Run.Record), so that
// phases.csv has, per tenant, one row of each phase whatever the strategy.
type Strategy interface {
	// Name is the strategy's stable name, as a plan stores it.
	Name() string
	// Clones says tenants get a copy of the first tenant's data: results
	// call such a run's provisioning "clone", else "load".
	Clones() bool
	Provision(ctx context.Context, r *Run) error
	Setup(ctx context.Context, r *Run) error
	Ingest(ctx context.Context, r *Run) error
	PostIngest(ctx context.Context, r *Run) error
}

// The strategies' names.
const (
	LoadEach      = "load-each"
	CloneDatabase = "clone-database"
	CloneDatadir  = "clone-datadir"
	SharedTables  = "shared-tables"
)

// strategies are the strategies by name: the registry.
var strategies = map[string]Strategy{
	LoadEach:      loadEach{},
	CloneDatabase: cloneDatabase{},
	CloneDatadir:  cloneDatadir{},
	SharedTables:  sharedTables{},
}

// Lookup returns the strategy of that name.
func Lookup(name string) (Strategy, bool) {
	s, ok := strategies[name]
	return s, ok
}

// Cloner is a provider that copies a stopped server: each copy a server
// of its own on the same data. It has the method set of provider.Cloner.
type Cloner interface {
	// Clone starts a new server on a copy of src's data; src must have
	// been stopped. copied is how long the copy of the data took.
	Clone(ctx context.Context, src *provider.Instance, s provider.InstanceSpec) (inst *provider.Instance, copied time.Duration, err error)
	// Restart starts a stopped server again on its data, as a new
	// Instance.
	Restart(ctx context.Context, inst *provider.Instance) (*provider.Instance, error)
}

// CanCloneServers says whether p can copy stopped servers.
func CanCloneServers(p provider.Provider) bool {
	_, ok := p.(Cloner)
	return ok
}

// Choose is the one place that picks how a run provisions its tenants:
// the model's tables shared by every tenant need their owner to set them
// up (SharedTables); with cloning asked (spec.ProvisionClone) and more
// than one tenant, a model of a database per tenant on one server copies
// the first tenant's database (CloneDatabase), a model of a server per
// tenant copies the first tenant's stopped server when the provider can
// (CloneDatadir); else every tenant loads its own (LoadEach). It asks the
// model what it can do (tenancy.TableSharer, DatabaseCloner,
// ServerAdopter), never its name, and the engine (eng, nil for PostgreSQL's
// abilities: a plan's engine is known) whether it copies databases
// (engine.DatabaseCopier) and renames a copied tenant (engine.Renamer):
// an engine that cannot loads every tenant's data.
func Choose(m tenancy.Model, eng engine.Engine, asked string, tenants int, canCloneServers bool) Strategy {
	if _, ok := m.(tenancy.TableSharer); ok {
		return sharedTables{}
	}
	can := func(ok bool) bool { return eng == nil || ok }
	if asked == spec.ProvisionClone && tenants > 1 {
		_, copies := eng.(engine.DatabaseCopier)
		if _, ok := m.(tenancy.DatabaseCloner); ok && can(copies) {
			return cloneDatabase{}
		}
		_, renames := eng.(engine.Renamer)
		if _, ok := m.(tenancy.ServerAdopter); ok && canCloneServers && can(renames) {
			return cloneDatadir{}
		}
	}
	return loadEach{}
}
