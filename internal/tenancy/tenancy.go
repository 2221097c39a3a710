// Package tenancy places tenants on instances according to a tenancy model
// (Erdelt and Rabl 2026, section 3): every tenant gets its own login role, a
// generated password and privileges on its own objects only.
package tenancy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Placement is where one tenant lives.
type Placement struct {
	Tenant   string // "t01"; also its role name
	Index    int    // 0-based
	Instance *provider.Instance
	Database string
	Schema   string // the tenant's schema in the schema model, else ""
	Role     string
	Password string // never logged; written only to the results' pgpass
}

// DSN connects as the tenant over transport ("tcp" or "unix").
func (p Placement) DSN(transport string) string {
	return p.Instance.DSN(transport, p.Database, p.Role, p.Password)
}

// WorkloadDSN connects as the tenant for the workload phase: through the
// pooler in front of its server when there is one
// (provider.Instance.WorkloadDSN).
func (p Placement) WorkloadDSN(transport string) string {
	return p.Instance.WorkloadDSN(transport, p.Database, p.Role, p.Password)
}

// Model is a tenancy model.
type Model interface {
	// Instances is how many servers the model needs for n tenants.
	Instances(n int) int
	// Place creates the tenants' roles and their databases or schemas on
	// the instances (as many as Instances said) and returns where each
	// tenant lives.
	Place(ctx context.Context, instances []*provider.Instance, tenants []string) ([]Placement, error)
}

// Models are the tenancy models by name. A value, not a global: callers
// build it with Builtin.
type Models map[string]Model

// Builtin returns the models tenantbench knows.
func Builtin() Models {
	return Models{"schema": Schema{}, "database": Database{}, "instance": Instance{}, "shared-table": SharedTable{}}
}

// Names are the models' names, sorted.
func (m Models) Names() []string {
	return slices.Sorted(maps.Keys(m))
}

// TenantName is the name of tenant i (from 0) of a run of n tenants,
// the one naming rule of tenantbench: t01..t99, t001..t999 from 100
// tenants on, zero-padded to the width of n so that names sort as numbers
// do. It is also the tenant's role, and its schema, database or server.
func TenantName(i, n int) string {
	return fmt.Sprintf("t%0*d", max(2, len(fmt.Sprint(n))), i+1)
}

// TenantNames are the names of a run's n tenants (TenantName).
func TenantNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = TenantName(i, n)
	}
	return names
}

// password makes a random password of 32 hex characters.
func password() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// session is a superuser connection to one database of inst, with the
// admin SQL of inst's engine: the models say what to create, the engine
// how. The connection is the engine's (Engine.Connect): tenancy imports
// no engine's client library.
type session struct {
	inst *provider.Instance
	conn server.Conn
	sql  engine.Admin
}

// adminSQL is the admin SQL of inst's engine.
func adminSQL(inst *provider.Instance) (engine.Admin, error) {
	a, ok := inst.Engine.(engine.Admin)
	if !ok || inst.Engine == nil {
		return nil, fmt.Errorf("instance %s: its engine has no admin SQL to place tenants with", inst.Name)
	}
	return a, nil
}

// connectAdmin opens a superuser session on database of inst; "" is the
// engine's maintenance database.
func connectAdmin(ctx context.Context, inst *provider.Instance, database string) (*session, error) {
	a, err := adminSQL(inst)
	if err != nil {
		return nil, err
	}
	if database == "" {
		database = a.MaintenanceDatabase()
	}
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(database))
	if err != nil {
		return nil, fmt.Errorf("instance %s: connecting as superuser: %w", inst.Name, err)
	}
	return &session{inst: inst, conn: conn, sql: a}, nil
}

func (s *session) close() { s.conn.Close(context.Background()) }

// exec runs statements in order, stopping at the first error.
func (s *session) exec(ctx context.Context, stmts ...[]string) error {
	for _, list := range stmts {
		for _, st := range list {
			if err := s.conn.Exec(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", st, err)
			}
		}
	}
	return nil
}

// createRole makes a login role with a fresh password.
func (s *session) createRole(ctx context.Context, role string) (string, error) {
	pw, err := password()
	if err != nil {
		return "", err
	}
	creating(s.inst, provider.ObjectRole, role, "")
	for _, st := range s.sql.CreateLogin(role, pw) {
		if err := s.conn.Exec(ctx, st); err != nil {
			// The statement holds the password's verifier, which is
			// not for the terminal either: name the role only.
			return "", fmt.Errorf("creating role %s: %w", role, err)
		}
	}
	return pw, nil
}

// placeEach creates each tenant's login role on the session's server
// (named objectName(t)), runs the model's statements for the role and
// makes its placement (pw is the role's generated password).
func (s *session) placeEach(ctx context.Context, tenants []string, stmts func(role string) [][]string,
	place func(i int, t, role, pw string) Placement) ([]Placement, error) {
	out := make([]Placement, 0, len(tenants))
	for i, t := range tenants {
		role := objectName(s.inst, t)
		pw, err := s.createRole(ctx, role)
		if err != nil {
			return nil, err
		}
		if err := s.exec(ctx, stmts(role)...); err != nil {
			return nil, fmt.Errorf("tenant %s: %w", t, err)
		}
		out = append(out, place(i, t, role, pw))
	}
	return out, nil
}
