package tenancy

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// What a model can do beyond placing tenants, declared through small
// interfaces so that callers (package provision) ask the model instead of
// testing its name.

// DatabaseCloner is a model whose tenants each own a database on one
// shared server, so that a tenant's database can be a copy of another's
// (CREATE DATABASE ... TEMPLATE): the tenant gets its role first
// (Cloner.AddRole), its database later (Cloner.CloneDatabase), through
// admin sessions that OpenCloner opens and a provisioning reuses.
type DatabaseCloner interface {
	OpenCloner(ctx context.Context, inst *provider.Instance) (*Cloner, error)
}

// ServerAdopter is a model whose tenants each own a server, so that a
// tenant's server can be a copy of another's stopped one, handed over to
// the tenant by AdoptClone.
type ServerAdopter interface {
	AdoptClone(ctx context.Context, inst *provider.Instance, template Placement, tenant string, index int) (Placement, error)
}

// TableSharer is a model that keeps every tenant in the same tables: their
// owner creates and loads the shared ones (ConnectOwner), then Share gives
// each tenant its rows.
type TableSharer interface {
	ConnectOwner(ctx context.Context, inst *provider.Instance) (server.Client, error)
	Share(ctx context.Context, inst *provider.Instance, ps []Placement, keys []workload.KeyColumn, ranges KeyRange) error
}

// WorkloadAcceptor is a model that holds some workloads only. Accepts says
// why it cannot hold w, or "" when it can.
type WorkloadAcceptor interface {
	Accepts(w workload.Workload) string
}

// EngineAcceptor is a model that runs on some engines only.
// AcceptsEngine says why it cannot run on e, or "" when it can.
type EngineAcceptor interface {
	AcceptsEngine(e engine.Engine) string
}

// AcceptsEngine says why m cannot run on e, or "" when it can: a model
// that does not implement EngineAcceptor runs on every engine.
func AcceptsEngine(m Model, e engine.Engine) string {
	if a, ok := m.(EngineAcceptor); ok && e != nil {
		return a.AcceptsEngine(e)
	}
	return ""
}

// AcceptsEngine: tenants' schemas in one database need an engine whose
// databases hold schemas apart (engine.Schemas).
func (Schema) AcceptsEngine(e engine.Engine) string {
	if _, ok := e.(engine.Schemas); !ok {
		return fmt.Sprintf("the schema model needs schemas apart from databases, which %s has not (there a schema is a database): use the database model", e.Name())
	}
	return ""
}

// AcceptsEngine: shared tables need schemas and row-level security
// (engine.Sharer).
func (SharedTable) AcceptsEngine(e engine.Engine) string {
	_, sch := e.(engine.Schemas)
	_, rls := e.(engine.Sharer)
	if !sch || !rls {
		return fmt.Sprintf("the shared-table model needs row-level security to keep tenants' rows apart, which %s has not", e.Name())
	}
	return ""
}

// Accepts says why m cannot hold w, or "" when it can: a model that does
// not implement WorkloadAcceptor holds every workload.
func Accepts(m Model, w workload.Workload) string {
	if a, ok := m.(WorkloadAcceptor); ok {
		return a.Accepts(w)
	}
	return ""
}

func (Database) OpenCloner(ctx context.Context, inst *provider.Instance) (*Cloner, error) {
	return OpenCloner(ctx, inst)
}

func (Instance) AdoptClone(ctx context.Context, inst *provider.Instance, template Placement, tenant string, index int) (Placement, error) {
	return AdoptClone(ctx, inst, template, tenant, index)
}

func (SharedTable) ConnectOwner(ctx context.Context, inst *provider.Instance) (server.Client, error) {
	return ConnectOwner(ctx, inst)
}

// Accepts: the shared tables need a workload whose rows carry their
// tenant's key (workload.Shared).
func (SharedTable) Accepts(w workload.Workload) string {
	if _, ok := w.(workload.Shared); !ok {
		return "shared-table needs a workload with a tenant key"
	}
	return ""
}

// The built-in models declare what they can do.
var (
	_ DatabaseCloner   = Database{}
	_ ServerAdopter    = Instance{}
	_ TableSharer      = SharedTable{}
	_ WorkloadAcceptor = SharedTable{}
	_ EngineAcceptor   = Schema{}
	_ EngineAcceptor   = SharedTable{}
)

// BlockScope is where the DBMS counts the blocks a tenant's objects read,
// so that a server's tenants' IO can be told apart where its cgroup
// cannot (every tenant's backends and the shared background processes
// read and write through one server).
type BlockScope int

const (
	// BlocksUncounted: no statistic holds one tenant's blocks alone (the
	// shared-table model's tenants share every table).
	BlocksUncounted BlockScope = iota
	// BlocksByDatabase: the blocks of the tenant's database
	// (Placement.Database), pg_stat_database's row.
	BlocksByDatabase
	// BlocksBySchema: the blocks of the tables, indexes and TOAST of the
	// tenant's schema (Placement.Schema) in Placement.Database.
	BlocksBySchema
)

// BlockCounter is a model whose tenants' blocks the DBMS counts apart:
// Blocks says where.
type BlockCounter interface {
	Blocks() BlockScope
}

// BlocksOf is where m's tenants' blocks are counted: BlocksUncounted for
// a model that is no BlockCounter, or nil.
func BlocksOf(m Model) BlockScope {
	if b, ok := m.(BlockCounter); ok {
		return b.Blocks()
	}
	return BlocksUncounted
}

// Blocks: each tenant owns a database.
func (Database) Blocks() BlockScope { return BlocksByDatabase }

// Blocks: each tenant owns a database on a server of its own.
func (Instance) Blocks() BlockScope { return BlocksByDatabase }

// Blocks: each tenant owns a schema of the one database.
func (Schema) Blocks() BlockScope { return BlocksBySchema }
