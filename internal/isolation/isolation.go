// Package isolation audits how well a tenancy model keeps one tenant from
// another: from one tenant's role it tries what a hostile or careless
// tenant would (reading another tenant's data by every path it has,
// reading its metadata, stalling it with locks, taking every connection
// slot, ending its sessions) and says of each probe whether it was denied,
// or what was visible or possible, with the evidence (the SQLSTATE or what
// was seen). Some outcomes are properties of a model rather than faults (a
// shared table can be locked by every tenant that may change it): the
// audit reports them so that users can choose a model knowing them.
//
// The probes speak PostgreSQL's SQL and catalogs. Every probe is bounded
// in time (lock_timeout, statement_timeout, the context) and leaves
// nothing behind: what it creates it creates in a transaction it rolls
// back, or drops at the end.
package isolation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Outcome is what a probe found.
type Outcome string

const (
	// Denied: the attempt failed or saw nothing of the other tenant.
	Denied Outcome = "denied"
	// Visible: the attempt saw the other tenant's data or metadata.
	Visible Outcome = "visible"
	// Possible: the attempt could act on the other tenant (stall it,
	// take its connection slots, end its sessions).
	Possible Outcome = "possible"
	// Untested: the probe could not set up its attempt (the victim's own
	// session failed): it found nothing either way, and says why.
	Untested Outcome = "untested"
)

// Sessions is the most sessions of tenants' roles the audit holds open at
// once on one server (the attacker's, the victim's, and a second of the
// victim's that the attacker tries to end): a server's max_connections
// must leave room for them after the workload (package plan).
const Sessions = 3

// Finding is one probe's outcome.
type Finding struct {
	Probe    string
	Outcome  Outcome
	Evidence string
}

// Timeout bounds a whole audit.
const Timeout = time.Minute

// Wait is how long the victim's statement may wait behind the attacker's
// locks before it is cancelled: a wait this long is a stall.
const Wait = 300 * time.Millisecond

// canaryRows is how many rows the victim's canary table holds.
const canaryRows = 3

// audit is one audit's state: the two tenants' connections and the
// victim's canary.
type audit struct {
	attacker, victim tenancy.Placement
	a, v             *pgx.Conn
	table            string // the canary table, unqualified
	qualified        string // schema-qualified, as the victim names it
	lo               uint32 // the victim's large object
	drop             func(ctx context.Context, v *pgx.Conn) error
	guards           map[string]bool // the tenancy guards the run set
	owner            *pgx.Conn       // the shared tables' owner, in a model that shares them, else nil
}

// Audit runs every probe from attacker's role against victim, another
// tenant of the same run placed by m, and returns one finding per probe.
// It creates a canary of the victim's data (a table of a few rows and a
// large object, in the victim's place; in shared tables, a keyed table of
// the model's own sharing) and drops it before returning. An error means
// the audit could not run (a tenant could not connect, the canary could
// not be made), not that a probe found something. guards are the tenancy
// guards set on the tenants (tenancy.GuardNames): a probe a guard answers
// names it in its evidence.
func Audit(ctx context.Context, m tenancy.Model, attacker, victim tenancy.Placement, guards []string) (_ []Finding, err error) {
	if attacker.Tenant == victim.Tenant {
		return nil, fmt.Errorf("isolation audit: attacker and victim are the same tenant %s", victim.Tenant)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	au := &audit{attacker: attacker, victim: victim, table: "tenantbench_canary_" + victim.Tenant, guards: map[string]bool{}}
	for _, g := range guards {
		au.guards[g] = true
	}
	if au.v, err = pgx.Connect(ctx, victim.DSN("tcp")); err != nil {
		return nil, fmt.Errorf("isolation audit: tenant %s: %w", victim.Tenant, err)
	}
	defer au.v.Close(context.Background())
	if au.a, err = pgx.Connect(ctx, attacker.DSN("tcp")); err != nil {
		return nil, fmt.Errorf("isolation audit: tenant %s: %w", attacker.Tenant, err)
	}
	defer au.a.Close(context.Background())
	if err := au.plant(ctx, m); err != nil {
		return nil, errors.Join(fmt.Errorf("isolation audit: canary of tenant %s: %w", victim.Tenant, err), au.clean())
	}
	var out []Finding
	for _, p := range probes {
		f := p.run(ctx, au)
		f.Probe = p.name
		// A refusal is the server's answer; a lost session or the audit's
		// time running out is no answer, and no finding.
		if err := ctx.Err(); err != nil {
			return nil, errors.Join(fmt.Errorf("isolation audit: probe %s: %w", p.name, err), au.clean())
		}
		if au.a.IsClosed() || au.v.IsClosed() {
			return nil, errors.Join(fmt.Errorf("isolation audit: probe %s: a tenant's session was lost (%s)", p.name, f.Evidence), au.clean())
		}
		out = append(out, f)
		// A probe that failed midway may leave its transaction open.
		rollback(au.a)
		rollback(au.v)
	}
	if err := au.clean(); err != nil {
		return out, fmt.Errorf("isolation audit: dropping the canary of tenant %s: %w", victim.Tenant, err)
	}
	return out, nil
}

// plant makes the victim's canary: a table of canaryRows rows and a large
// object. In a model that shares tables, the table is the owner's, shared
// by the model as it shares the workload's (tenancy.TableSharer), and
// the rows are the victim's by key; else the victim creates it in its own
// schema or database.
func (au *audit) plant(ctx context.Context, m tenancy.Model) error {
	if err := au.v.QueryRow(ctx, "SELECT lo_from_bytea(0, 'tenantbench canary')").Scan(&au.lo); err != nil {
		return err
	}
	create := "CREATE TABLE " + au.table + " (k bigint, v text)"
	owner := au.v
	if sh, ok := m.(tenancy.TableSharer); ok {
		oc, err := sh.ConnectOwner(ctx, au.victim.Instance)
		if err != nil {
			return err
		}
		o, ok := workload.PG(oc)
		if !ok {
			_ = oc.Close(context.Background())
			return workload.NoForm("isolation audit", oc)
		}
		owner, au.owner = o, o
		au.drop = func(ctx context.Context, _ *pgx.Conn) error {
			defer o.Close(context.Background())
			_, err := o.Exec(ctx, "DROP TABLE IF EXISTS "+au.table)
			return err
		}
		if _, err := o.Exec(ctx, create); err != nil {
			return err
		}
		ps := []tenancy.Placement{au.attacker, au.victim}
		key := func(i int) (int64, int64) { return int64(i + 1), int64(i + 1) }
		if err := sh.Share(ctx, au.victim.Instance, ps, []workload.KeyColumn{{Table: au.table, Column: "k"}}, key); err != nil {
			return err
		}
	} else {
		au.drop = func(ctx context.Context, v *pgx.Conn) error {
			_, err := v.Exec(ctx, "DROP TABLE IF EXISTS "+au.table)
			return err
		}
		if _, err := au.v.Exec(ctx, create); err != nil {
			return err
		}
	}
	if _, err := au.v.Exec(ctx, fmt.Sprintf("INSERT INTO %s SELECT %d, 'secret of %s' FROM generate_series(1, %d)",
		au.table, au.victim.Index+1, au.victim.Tenant, canaryRows)); err != nil {
		return err
	}
	// The statistics the metadata probes look for.
	if _, err := owner.Exec(ctx, "ANALYZE "+au.table); err != nil {
		return err
	}
	var schema string
	if err := owner.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	au.qualified = pgx.Identifier{schema, au.table}.Sanitize()
	return nil
}

// clean drops the canary, whatever state the audit is in: on a new
// session of the victim's if a probe ended its own.
func (au *audit) clean() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v := au.v
	if v.IsClosed() {
		var err error
		if v, err = pgx.Connect(ctx, au.victim.DSN("tcp")); err != nil {
			return err
		}
		defer v.Close(context.Background())
	}
	rollback(v)
	var errs []error
	if au.drop != nil {
		errs = append(errs, au.drop(ctx, v))
	}
	if au.lo != 0 {
		_, err := v.Exec(ctx, "SELECT lo_unlink($1)", au.lo)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// guard is " (guard name)" when the guard called name is set, else "":
// the evidence names the guard that answered a probe.
func (au *audit) guard(name string) string {
	if au.guards[name] {
		return " (guard " + name + ")"
	}
	return ""
}

// sameServer says whether the two tenants share a server.
func (au *audit) sameServer() bool {
	return sameEndpoint(au.attacker.Instance, au.victim.Instance)
}

func sameEndpoint(a, b *provider.Instance) bool {
	return a == b || (a.Client() == b.Client())
}

// rollback ends an open transaction, if any.
func rollback(c *pgx.Conn) {
	if c.PgConn().TxStatus() != 'I' {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = c.Exec(ctx, "ROLLBACK")
	}
}

// sqlstate is err's SQLSTATE, or "".
func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// refused is the evidence of a refusal: the SQLSTATE and the server's
// message.
func refused(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return err.Error()
}
