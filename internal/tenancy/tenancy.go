// Package tenancy places tenants on instances according to a tenancy model
// (Erdelt and Rabl 2026, section 3): every tenant gets its own login role, a
// generated password and privileges on its own objects only.
package tenancy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

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
	var n []string
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// TenantNames are t01..tNN, zero-padded to the same width so that they
// sort as numbers do.
func TenantNames(n int) []string {
	width := max(2, len(fmt.Sprint(n)))
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%0*d", width, i+1)
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

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// createRole makes a login role with a fresh password. Utility statements
// take no bind parameters, so the password goes in as a quoted literal; it
// is hex, and quoted all the same.
func createRole(ctx context.Context, admin *pgx.Conn, role string) (string, error) {
	pw, err := password()
	if err != nil {
		return "", err
	}
	lit, err := admin.PgConn().EscapeString(pw)
	if err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", ident(role), lit)); err != nil {
		return "", fmt.Errorf("creating role %s: %w", role, err)
	}
	return pw, nil
}

// connectAdmin opens a superuser connection to database on inst.
func connectAdmin(ctx context.Context, inst *provider.Instance, database string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, inst.AdminDSN(database))
	if err != nil {
		return nil, fmt.Errorf("instance %s: connecting as superuser: %w", inst.Name, err)
	}
	return conn, nil
}

// lockDown stops every role but the owners from connecting to the
// maintenance databases, so a tenant's role reaches its own database only.
func lockDown(ctx context.Context, admin *pgx.Conn) error {
	for _, db := range []string{"postgres", "template1"} {
		if _, err := admin.Exec(ctx, "REVOKE CONNECT ON DATABASE "+ident(db)+" FROM PUBLIC"); err != nil {
			return err
		}
	}
	return nil
}

// execAll runs statements in order, stopping at the first error.
// placeEach creates each tenant's login role on admin's server, runs the
// model's statements for the tenant and makes its placement (pw is the
// role's generated password).
func placeEach(ctx context.Context, admin *pgx.Conn, tenants []string, stmts func(t string) []string,
	place func(i int, t, pw string) Placement) ([]Placement, error) {
	out := make([]Placement, 0, len(tenants))
	for i, t := range tenants {
		pw, err := createRole(ctx, admin, t)
		if err != nil {
			return nil, err
		}
		if err := execAll(ctx, admin, stmts(t)...); err != nil {
			return nil, fmt.Errorf("tenant %s: %w", t, err)
		}
		out = append(out, place(i, t, pw))
	}
	return out, nil
}

func execAll(ctx context.Context, conn *pgx.Conn, stmts ...string) error {
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}
