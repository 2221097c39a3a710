package tenancy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// Cloned provisioning: tenants whose data are identical (the workloads'
// data depend on their own seed and the scale only) are loaded once, into
// the first tenant, and the others get a copy. In the database model a copy
// is CREATE DATABASE ... TEMPLATE (AddRole, then CloneDatabase); in the
// instance model it is a copy of the first server's stopped data
// directory, made by the provider, which AdoptClone then hands to its
// tenant.

// AddRole creates tenant's role on inst, for a database that
// CloneDatabase makes later, and returns the tenant's placement (database
// model: the database is named after the tenant).
func AddRole(ctx context.Context, inst *provider.Instance, tenant string, index int) (Placement, error) {
	admin, err := connectAdmin(ctx, inst, "postgres")
	if err != nil {
		return Placement{}, err
	}
	defer admin.Close(context.Background())
	pw, err := createRole(ctx, admin, tenant)
	if err != nil {
		return Placement{}, err
	}
	return Placement{Tenant: tenant, Index: index, Instance: inst, Database: tenant, Role: tenant, Password: pw}, nil
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
// Several clones of one template may run at once.
func CloneDatabase(ctx context.Context, template, p Placement) error {
	if template.Instance != p.Instance || template.Schema != "" || p.Schema != "" {
		return errors.New("clone: a database is cloned on its own server, in the database model")
	}
	inst := p.Instance
	admin, err := connectAdmin(ctx, inst, "postgres")
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	create := "CREATE DATABASE " + ident(p.Database) + " TEMPLATE " + ident(template.Database) + " OWNER " + ident(p.Role)
	var version int
	if err := admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return err
	}
	if version >= 150000 {
		// FILE_COPY copies the files and checkpoints; the default since
		// 15, WAL_LOG, writes every block to the WAL: slower for
		// databases of benchmark size, and far more WAL.
		create += " STRATEGY FILE_COPY"
	}
	deadline := time.Now().Add(templateWait)
	for {
		// A session on the template (an autovacuum worker, which
		// CREATE DATABASE ends itself; a tenant's leftover) blocks it.
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", template.Database); err != nil {
			return err
		}
		_, err = admin.Exec(ctx, create)
		var pe *pgconn.PgError
		if err == nil || !errors.As(err, &pe) || pe.Code != "55006" || time.Now().After(deadline) { // object_in_use
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
	if err := execAll(ctx, admin, "REVOKE CONNECT, TEMPORARY ON DATABASE "+ident(p.Database)+" FROM PUBLIC"); err != nil {
		return fmt.Errorf("tenant %s: %w", p.Tenant, err)
	}
	conn, err := connectAdmin(ctx, inst, p.Database)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := handOver(ctx, conn, template.Role, p.Role); err != nil {
		return fmt.Errorf("tenant %s: %w", p.Tenant, err)
	}
	return nil
}

// ownedBy lists the statements that give the objects of the current
// database owned by role $1 to role $2: schemas, then relations (a
// table's indexes, TOAST table and owned sequences go with it), then
// free-standing sequences, routines and types (a relation's row type and
// array types go with their relation or element type).
const ownedBy = `SELECT stmt FROM (
	SELECT 1 AS ord, format('ALTER SCHEMA %I OWNER TO %I', nspname, $2::text) AS stmt
	FROM pg_namespace WHERE pg_get_userbyid(nspowner) = $1
UNION ALL
	SELECT CASE c.relkind WHEN 'S' THEN 3 ELSE 2 END,
		format('ALTER %s %I.%I OWNER TO %I', CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
			WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, n.nspname, c.relname, $2::text)
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE pg_get_userbyid(c.relowner) = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
		AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
			AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
UNION ALL
	SELECT 4, format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, $2::text)
	FROM pg_proc p WHERE pg_get_userbyid(p.proowner) = $1
UNION ALL
	SELECT 5, format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype, $2::text)
	FROM pg_type t WHERE pg_get_userbyid(t.typowner) = $1 AND t.typtype IN ('b', 'c', 'd', 'e', 'r')
		AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
		AND NOT EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = t.oid)
) s ORDER BY ord`

// leftOf counts what of the current database still depends on role $1:
// objects it owns, privileges granted to it, policies naming it.
const leftOf = `SELECT count(*) FROM pg_shdepend
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND refclassid = 'pg_authid'::regclass AND refobjid = (SELECT oid FROM pg_roles WHERE rolname = $1)`

// handOver gives role to every object of conn's database that role from
// owns (REASSIGN OWNED would also hand over from's own database, a shared
// object), then checks nothing of the database depends on from any more.
func handOver(ctx context.Context, conn *pgx.Conn, from, to string) error {
	rows, err := conn.Query(ctx, ownedBy, from, to)
	if err != nil {
		return fmt.Errorf("listing the objects of %s: %w", from, err)
	}
	stmts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("listing the objects of %s: %w", from, err)
	}
	if err := execAll(ctx, conn, stmts...); err != nil {
		return err
	}
	var left int64
	if err := conn.QueryRow(ctx, leftOf, from).Scan(&left); err != nil {
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
	admin, err := connectAdmin(ctx, inst, "postgres")
	if err != nil {
		return Placement{}, err
	}
	defer admin.Close(context.Background())
	if tenant != template.Role {
		// Nothing is connected to the copy but this session; ALTER
		// DATABASE ends autovacuum workers itself.
		err := execAll(ctx, admin,
			"ALTER ROLE "+ident(template.Role)+" RENAME TO "+ident(tenant),
			"ALTER DATABASE "+ident(template.Database)+" RENAME TO "+ident(tenant))
		if err != nil {
			return Placement{}, fmt.Errorf("tenant %s: %w", tenant, err)
		}
	}
	pw, err := password()
	if err != nil {
		return Placement{}, err
	}
	lit, err := admin.PgConn().EscapeString(pw)
	if err != nil {
		return Placement{}, err
	}
	if _, err := admin.Exec(ctx, "ALTER ROLE "+ident(tenant)+" PASSWORD '"+lit+"'"); err != nil {
		return Placement{}, fmt.Errorf("tenant %s: new password: %w", tenant, err)
	}
	return Placement{Tenant: tenant, Index: index, Instance: inst, Database: tenant, Role: tenant, Password: pw}, nil
}
