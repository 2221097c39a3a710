package tenancy

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// The names of what tenantbench creates on a server. On a server it
// started, the objects bear the tenants' names (TenantName) and the
// model's own (SharedDatabase, TableOwner); on a server it borrowed from
// the user (provider.Borrowed), each name begins with the run's id, so
// that it never meets one of the user's, and each object is listed
// before it is created, so that exactly those are dropped. The tenant
// keeps its name in the results either way (Placement.Tenant); its role,
// database and schema carry the prefix.

// objectName is what name is called on inst.
func objectName(inst *provider.Instance, name string) string {
	return provider.PrefixOf(inst) + name
}

// SharedDatabaseOf is the one database of the schema and shared-table
// models on inst: SharedDatabase, with the run's prefix on a borrowed
// server.
func SharedDatabaseOf(inst *provider.Instance) string { return objectName(inst, SharedDatabase) }

// lockDown closes the maintenance databases on a server tenantbench
// started; on a borrowed one they are the user's and stay as they are
// (a tenant's role may then connect to what the user leaves open to
// every role: docs/spec.md, provider external).
func lockDown(a engine.Admin, inst *provider.Instance) []string {
	if _, borrowed := provider.As[provider.Borrowed](inst); borrowed {
		return nil
	}
	return a.LockDown()
}

// creating lists an object about to be created on inst (Borrowed).
func creating(inst *provider.Instance, kind, name, database string) {
	provider.NoteCreated(inst, provider.Object{Kind: kind, Name: name, Database: database})
}

// Creator is a model that says what it creates on each server for
// tenants, each name beginning with prefix (the plan lists them for a
// borrowed server).
type Creator interface {
	Creates(prefix string, tenants []string) []provider.Object
}

func roles(prefix string, tenants []string) []provider.Object {
	out := make([]provider.Object, len(tenants))
	for i, t := range tenants {
		out[i] = provider.Object{Kind: provider.ObjectRole, Name: prefix + t}
	}
	return out
}

func (Schema) Creates(prefix string, tenants []string) []provider.Object {
	db := prefix + SharedDatabase
	out := append([]provider.Object{{Kind: provider.ObjectDatabase, Name: db}}, roles(prefix, tenants)...)
	for _, t := range tenants {
		out = append(out, provider.Object{Kind: provider.ObjectSchema, Name: prefix + t, Database: db})
	}
	return out
}

func (Database) Creates(prefix string, tenants []string) []provider.Object {
	out := roles(prefix, tenants)
	for _, t := range tenants {
		out = append(out, provider.Object{Kind: provider.ObjectDatabase, Name: prefix + t})
	}
	return out
}

// Creates: each server holds one tenant, as in the database model.
func (Instance) Creates(prefix string, tenants []string) []provider.Object {
	return Database{}.Creates(prefix, tenants)
}

func (SharedTable) Creates(prefix string, tenants []string) []provider.Object {
	return append([]provider.Object{{Kind: provider.ObjectRole, Name: prefix + TableOwner},
		{Kind: provider.ObjectRole, Name: prefix + tenantsGroup},
		{Kind: provider.ObjectDatabase, Name: prefix + SharedDatabase}}, roles(prefix, tenants)...)
}

var (
	_ Creator = Schema{}
	_ Creator = Database{}
	_ Creator = Instance{}
	_ Creator = SharedTable{}
)

// RunName is a run's id on a borrowed server: "r", the plan's run id and
// a random tag that tells this execution from another experiment's run of
// the same id ("r001_3fa9c2"). Every name the run creates there begins
// with it and "_" (provider.Borrowed's Prefix).
func RunName(id string) (string, error) {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "r" + id + "_" + hex.EncodeToString(b), nil
}

// PlannedPrefix is the prefix of run id's names as the plan shows it,
// before the tag is drawn.
func PlannedPrefix(id string) string { return "r" + id + "_<tag>_" }
