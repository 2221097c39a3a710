package tenancy

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Cloned provisioning: tenants whose data are identical (the workloads'
// data depend on their own seed and the scale only) are loaded once, into
// the first tenant, and the others get a copy. In the database model a copy
// is CREATE DATABASE ... TEMPLATE (AddRole, then CloneDatabase); in the
// instance model it is a copy of the first server's stopped data
// directory, made by the provider, which AdoptClone then hands to its
// tenant.

// Cloner is one admin session on a server through which tenants get
// their roles (AddRole) and their copies (CloneDatabase), one call at a
// time: a provisioning keeps a few and reuses them, rather than open a
// superuser session (a server process, its authentication) for each of
// 1,000 roles and each of 1,000 copies.
type Cloner struct {
	inst    *provider.Instance
	admin   *session
	version int // the server's, as the engine's VersionQuery says; 0 until asked
}

// OpenCloner opens a Cloner's session on inst; Close ends it.
func OpenCloner(ctx context.Context, inst *provider.Instance) (*Cloner, error) {
	admin, err := connectAdmin(ctx, inst, "")
	if err != nil {
		return nil, err
	}
	return &Cloner{inst: inst, admin: admin}, nil
}

// Close ends the Cloner's session.
func (c *Cloner) Close() { c.admin.close() }

// AddRole creates tenant's role on c's server, for a database that
// CloneDatabase makes later, and returns the tenant's placement (database
// model: the database is named after the tenant's role).
func (c *Cloner) AddRole(ctx context.Context, tenant string, index int) (Placement, error) {
	role := objectName(c.inst, tenant)
	pw, err := c.admin.createRole(ctx, role)
	if err != nil {
		return Placement{}, err
	}
	return Placement{Tenant: tenant, Index: index, Instance: c.inst, Database: role, Role: role, Password: pw}, nil
}

// templateWait bounds the wait for the template database's last sessions
// to end.
const templateWait = 30 * time.Second

// CloneDatabase makes p's database a copy of template's (CREATE DATABASE
// ... TEMPLATE, file by file on servers from 15 on), owned by p's role and
// closed to every other role as Place does, and hands p's role every
// object of the copy that template's role owned, so that the copy holds
// nothing of the template's role. Template's database must have no
// session: any left is ended (a template cannot be copied while in use).
// Several clones of one template may run at once, each on a Cloner of its
// own. p must be on c's server. The copy's own objects are handed over in
// a session on the copy, which only it can do.
func (c *Cloner) CloneDatabase(ctx context.Context, template, p Placement) error {
	if template.Instance != p.Instance || template.Schema != "" || p.Schema != "" {
		return errors.New("clone: a database is cloned on its own server, in the database model")
	}
	inst := p.Instance
	if inst != c.inst {
		return fmt.Errorf("clone: tenant %s is on instance %s, the session on %s", p.Tenant, inst.Name, c.inst.Name)
	}
	cp, ok := inst.Engine.(engine.DatabaseCopier)
	if !ok {
		return fmt.Errorf("instance %s: its engine cannot copy a database", inst.Name)
	}
	admin := c.admin
	if c.version == 0 {
		v, err := queryInt(ctx, admin.conn, cp.VersionQuery())
		if err != nil {
			return err
		}
		c.version = v
	}
	create := cp.CopyDatabase(p.Database, template.Database, p.Role, c.version)
	creating(inst, provider.ObjectDatabase, p.Database, "")
	deadline := time.Now().Add(templateWait)
	var err error
	for {
		// A session on the template (an autovacuum worker, which the copy
		// ends itself; a tenant's leftover) blocks it.
		if err := admin.conn.Exec(ctx, cp.EndSessionsQuery(), template.Database); err != nil {
			return err
		}
		err = admin.conn.Exec(ctx, create[0])
		if err == nil || !cp.InUse(err) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err != nil {
		return fmt.Errorf("tenant %s: cloning database %s: %w", p.Tenant, template.Database, err)
	}
	if err := admin.exec(ctx, create[1:]); err != nil {
		return fmt.Errorf("tenant %s: %w", p.Tenant, err)
	}
	conn, err := connectAdmin(ctx, inst, p.Database)
	if err != nil {
		return err
	}
	defer conn.close()
	if err := handOver(ctx, conn, cp, template.Role, p.Role); err != nil {
		return fmt.Errorf("tenant %s: %w", p.Tenant, err)
	}
	return nil
}

// handOver gives role to every object of s's database that role from
// owns (PostgreSQL's REASSIGN OWNED would also hand over from's own
// database, a shared object), then checks nothing of the database depends
// on from any more.
func handOver(ctx context.Context, s *session, cp engine.DatabaseCopier, from, to string) error {
	stmts, err := s.conn.QueryStrings(ctx, cp.HandOverQuery(), from, to)
	if err != nil {
		return fmt.Errorf("listing the objects of %s: %w", from, err)
	}
	if err := s.exec(ctx, stmts); err != nil {
		return err
	}
	left, err := queryInt(ctx, s.conn, cp.LeftOfQuery(), from)
	if err != nil {
		return err
	}
	if left > 0 {
		return fmt.Errorf("the copy still holds %d object(s) or privilege(s) of role %s that cannot be handed over", left, from)
	}
	return nil
}

// AdoptClone hands the server inst, started on a copy of template's
// stopped server (instance model), to tenant: template's role is renamed
// tenant and given a new password, and its database is renamed too, so
// that tenant owns every object in it and template's credentials open
// nothing. The tenant of the template itself keeps its role and database
// but gets a new password. inst's superuser must be inst's own (the
// provider sees to it).
func AdoptClone(ctx context.Context, inst *provider.Instance, template Placement, tenant string, index int) (Placement, error) {
	if template.Database != template.Role || template.Schema != "" {
		return Placement{}, errors.New("clone: a server is cloned in the instance model, whose database is named after its tenant")
	}
	admin, err := connectAdmin(ctx, inst, "")
	if err != nil {
		return Placement{}, err
	}
	defer admin.close()
	if tenant != template.Role {
		// Nothing is connected to the copy but this session; renaming the
		// database ends autovacuum workers itself.
		ren, ok := inst.Engine.(engine.Renamer)
		if !ok {
			return Placement{}, fmt.Errorf("instance %s: engine %s cannot rename a copied tenant", inst.Name, inst.Engine.Name())
		}
		err := admin.exec(ctx, ren.RenameTenant(template.Role, template.Database, tenant, tenant))
		if err != nil {
			return Placement{}, fmt.Errorf("tenant %s: %w", tenant, err)
		}
	}
	pw, err := password()
	if err != nil {
		return Placement{}, err
	}
	for _, st := range admin.sql.SetPassword(tenant, pw) {
		if err := admin.conn.Exec(ctx, st); err != nil {
			return Placement{}, fmt.Errorf("tenant %s: new password: %w", tenant, err)
		}
	}
	return Placement{Tenant: tenant, Index: index, Instance: inst, Database: tenant, Role: tenant, Password: pw}, nil
}

// queryInt runs a query of one integer.
func queryInt(ctx context.Context, c server.Conn, sql string, args ...any) (int, error) {
	v, err := c.QueryStrings(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("%s: %d rows, want 1", sql, len(v))
	}
	n, err := strconv.Atoi(v[0])
	if err != nil {
		return 0, fmt.Errorf("%s: %w", sql, err)
	}
	return n, nil
}
