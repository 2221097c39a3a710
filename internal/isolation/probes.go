package isolation

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// probe is one attempt from the attacker's role.
type probe struct {
	name string
	run  func(ctx context.Context, au *audit) Finding
}

// probes in the order they run; their names are the probe column of
// isolation.csv. Ending the victim's session comes last but one, on a
// session of its own.
var probes = []probe{
	{"read: direct", readDirect},
	{"read: search_path", readSearchPath},
	{"read: view", readView},
	{"read: security definer function", readDefiner},
	{"read: others' security definer functions", othersDefiners},
	{"read: large object", readLargeObject},
	{"read: COPY TO PROGRAM", copyProgram},
	{"read: dblink", dblink},
	{"metadata: table names", tableNames},
	{"metadata: row counts", rowCounts},
	{"metadata: activity statistics", activityStats},
	{"metadata: planner statistics", plannerStats},
	{"metadata: planner estimates", plannerEstimates},
	{"metadata: role names", roleNames},
	{"lock: LOCK TABLE", lockTable},
	{"lock: row locks", rowLocks},
	{"vacuum: held back by a long transaction", vacuumHorizon},
	{"connections: exhaustion", exhaustion},
	{"sessions: terminate", terminate},
}

// count reads a count of the canary's rows through sql as the attacker:
// an error is a denial, rows are visible, none is a denial (row-level
// security hid them).
func (au *audit) count(ctx context.Context, c *pgx.Conn, sql string) Finding {
	var n int64
	if err := c.QueryRow(ctx, sql).Scan(&n); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	if n > 0 {
		return Finding{Outcome: Visible, Evidence: fmt.Sprintf("%d of %s's %d rows read", n, au.victim.Tenant, canaryRows)}
	}
	return Finding{Outcome: Denied, Evidence: fmt.Sprintf("0 of %s's %d rows read", au.victim.Tenant, canaryRows)}
}

func readDirect(ctx context.Context, au *audit) Finding {
	return au.count(ctx, au.a, "SELECT count(*) FROM "+au.qualified)
}

// readSearchPath: the victim's schema first on the attacker's path, the
// canary named unqualified.
func readSearchPath(ctx context.Context, au *audit) Finding {
	schema := strings.SplitN(au.qualified, ".", 2)[0]
	if _, err := au.a.Exec(ctx, "BEGIN; SET LOCAL search_path TO "+schema+", public"); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	defer rollback(au.a)
	return au.count(ctx, au.a, "SELECT count(*) FROM "+au.table)
}

// create runs ddl in the attacker's open transaction, in the temporary
// schema if the attacker may create there, else in its own: it says what
// refused both.
func (au *audit) create(ctx context.Context, ddl func(schema string) string) error {
	if _, err := au.a.Exec(ctx, "SAVEPOINT probe"); err != nil {
		return err
	}
	if _, err := au.a.Exec(ctx, ddl("pg_temp.")); err == nil {
		return nil
	}
	if _, err := au.a.Exec(ctx, "ROLLBACK TO SAVEPOINT probe"); err != nil {
		return err
	}
	_, err := au.a.Exec(ctx, ddl(""))
	return err
}

// readView: a view of the canary, made by the attacker, reads with the
// attacker's rights.
func readView(ctx context.Context, au *audit) Finding {
	if _, err := au.a.Exec(ctx, "BEGIN"); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	defer rollback(au.a)
	name := ""
	err := au.create(ctx, func(schema string) string {
		name = schema + "tenantbench_probe"
		return "CREATE VIEW " + name + " AS SELECT * FROM " + au.qualified
	})
	if err != nil {
		return Finding{Outcome: Denied, Evidence: "creating the view: " + refused(err)}
	}
	return au.count(ctx, au.a, "SELECT count(*) FROM "+name)
}

// readDefiner: a SECURITY DEFINER function the attacker makes runs with
// the attacker's rights only.
func readDefiner(ctx context.Context, au *audit) Finding {
	if _, err := au.a.Exec(ctx, "BEGIN"); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	defer rollback(au.a)
	name := ""
	err := au.create(ctx, func(schema string) string {
		name = schema + "tenantbench_probe"
		return "CREATE FUNCTION " + name + "() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS " +
			"'SELECT count(*) FROM " + strings.ReplaceAll(au.qualified, "'", "''") + "'"
	})
	if err != nil {
		return Finding{Outcome: Denied, Evidence: "creating the function: " + refused(err)}
	}
	return au.count(ctx, au.a, "SELECT "+name+"()")
}

// othersDefiners: SECURITY DEFINER functions of other roles that the
// attacker may call run with their owner's rights.
func othersDefiners(ctx context.Context, au *audit) Finding {
	return au.listing(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p
		JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.prosecdef AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user)
		AND n.nspname NOT IN ('pg_catalog', 'information_schema')
		AND has_function_privilege(p.oid, 'EXECUTE') ORDER BY 1 LIMIT 10`, nil,
		Possible, func(fns []string) string { return "callable with their owner's rights: " + strings.Join(fns, ", ") },
		"no other role's security definer function is callable")
}

// listing is the finding of a query of one text column run as the
// attacker: denied when refused, or when it lists nothing (none says so);
// found when it lists anything, which says describes.
func (au *audit) listing(ctx context.Context, q string, args []any, found Outcome, says func([]string) string, none string) Finding {
	rows, err := au.a.Query(ctx, q, args...)
	var list []string
	if err == nil {
		list, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	switch {
	case err != nil:
		return Finding{Outcome: Denied, Evidence: refused(err)}
	case len(list) > 0:
		return Finding{Outcome: found, Evidence: says(list)}
	}
	return Finding{Outcome: Denied, Evidence: none}
}

func readLargeObject(ctx context.Context, au *audit) Finding {
	var n int
	if err := au.a.QueryRow(ctx, "SELECT length(lo_get($1))", au.lo).Scan(&n); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	return Finding{Outcome: Visible, Evidence: fmt.Sprintf("%d bytes of %s's large object %d read", n, au.victim.Tenant, au.lo)}
}

// copyProgram: running a program as the server's user would reach every
// tenant's files.
func copyProgram(ctx context.Context, au *audit) Finding {
	if _, err := au.a.Exec(ctx, "COPY (SELECT 1) TO PROGRAM 'true'"); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	return Finding{Outcome: Possible, Evidence: "COPY TO PROGRAM ran a program as the server's user"}
}

// dblink: with dblink installed, a tenant could open sessions to other
// databases; without it, the attacker tries to install it.
func dblink(ctx context.Context, au *audit) Finding {
	var installed bool
	if err := au.a.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'dblink')").Scan(&installed); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	if !installed {
		if _, err := au.a.Exec(ctx, "BEGIN; CREATE EXTENSION dblink"); err != nil {
			rollback(au.a)
			return Finding{Outcome: Denied, Evidence: "not installed; CREATE EXTENSION dblink: " + refused(err)}
		}
		defer rollback(au.a)
	}
	ep := au.victim.Instance.Client()
	conninfo := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", ep.Host, ep.Port, au.victim.Database, au.victim.Role)
	var n int64
	err := au.a.QueryRow(ctx, "SELECT n FROM dblink($1, $2) AS t(n bigint)", conninfo, "SELECT count(*) FROM "+au.qualified).Scan(&n)
	if err != nil {
		return Finding{Outcome: Denied, Evidence: "dblink to " + au.victim.Tenant + " without its password: " + refused(err)}
	}
	return Finding{Outcome: Visible, Evidence: fmt.Sprintf("dblink read %d of %s's rows", n, au.victim.Tenant)}
}

func tableNames(ctx context.Context, au *audit) Finding {
	return au.listing(ctx, "SELECT relnamespace::regnamespace::text || '.' || relname FROM pg_class WHERE relname = $1", []any{au.table},
		Visible, func(names []string) string { return "pg_class lists " + au.victim.Tenant + "'s table " + names[0] },
		"pg_class of the attacker's database does not list "+au.table)
}

// rowCounts: the catalog's and the statistics collector's row counts of
// the victim's table. The catalog's (pg_class.reltuples, which ANALYZE
// and VACUUM set) stays readable whatever guard is set: every client reads
// pg_class, so no guard takes it.
func rowCounts(ctx context.Context, au *audit) Finding {
	var reltuples float64
	err := au.a.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE relname = $1", au.table).Scan(&reltuples)
	switch {
	case err == pgx.ErrNoRows:
		return Finding{Outcome: Denied, Evidence: "no catalog row for " + au.table}
	case err != nil:
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	var live int64
	stat := "pg_stat_user_tables.n_live_tup "
	err = au.a.QueryRow(ctx, "SELECT coalesce(max(s.n_live_tup), -1) FROM pg_stat_user_tables s WHERE s.relname = $1", au.table).Scan(&live)
	if err != nil {
		live, stat = -1, stat+"refused: "+refused(err)+au.guard(tenancy.GuardHideStatistics)
	} else {
		stat += fmt.Sprint(live)
	}
	ev := fmt.Sprintf("pg_class.reltuples %.0f, %s, of %s's table", reltuples, stat, au.victim.Tenant)
	if reltuples > 0 || live > 0 {
		if au.guards[tenancy.GuardHideStatistics] {
			ev += "; no guard hides pg_class"
		}
		return Finding{Outcome: Visible, Evidence: ev}
	}
	return Finding{Outcome: Denied, Evidence: ev}
}

// activityStats: the cumulative statistics of the victim's table (scans,
// rows inserted), through the view and through the function under it
// that anyone may call with the table's oid, and of the victim's
// database when it is not the attacker's (pg_stat_database lists every
// database of the server).
func activityStats(ctx context.Context, au *audit) Finding {
	var seen, hidden []string
	refusals := 0 // what the server refused, rather than had no row of
	var oid uint32
	err := au.a.QueryRow(ctx, "SELECT oid FROM pg_class WHERE relname = $1", au.table).Scan(&oid)
	switch {
	case err == pgx.ErrNoRows:
		hidden = append(hidden, "pg_class of the attacker's database has no "+au.table)
	case err != nil:
		hidden = append(hidden, "pg_class: "+refused(err))
	default:
		var scans, ins int64
		err = au.a.QueryRow(ctx, "SELECT coalesce(seq_scan, 0), coalesce(n_tup_ins, 0) FROM pg_stat_all_tables WHERE relid = $1", oid).Scan(&scans, &ins)
		switch {
		case err == nil:
			seen = append(seen, fmt.Sprintf("pg_stat_all_tables lists %s's table (seq_scan %d, n_tup_ins %d)", au.victim.Tenant, scans, ins))
		case err == pgx.ErrNoRows:
			hidden = append(hidden, "pg_stat_all_tables has no row of "+au.table)
		default:
			hidden, refusals = append(hidden, "pg_stat_all_tables: "+refused(err)), refusals+1
		}
		if err = au.a.QueryRow(ctx, "SELECT pg_stat_get_tuples_inserted($1)", oid).Scan(&ins); err == nil {
			seen = append(seen, fmt.Sprintf("pg_stat_get_tuples_inserted(%d) = %d", oid, ins))
		} else {
			hidden, refusals = append(hidden, "pg_stat_get_tuples_inserted: "+refused(err)), refusals+1
		}
	}
	if au.sameServer() && au.victim.Database != au.attacker.Database {
		var commits, ins int64
		err := au.a.QueryRow(ctx, "SELECT xact_commit, tup_inserted FROM pg_stat_database WHERE datname = $1", au.victim.Database).Scan(&commits, &ins)
		switch {
		case err == nil:
			seen = append(seen, fmt.Sprintf("pg_stat_database lists %s's database (xact_commit %d, tup_inserted %d)", au.victim.Tenant, commits, ins))
		case err == pgx.ErrNoRows:
			hidden = append(hidden, "pg_stat_database has no row of "+au.victim.Database)
		default:
			hidden, refusals = append(hidden, "pg_stat_database: "+refused(err)), refusals+1
		}
	}
	if len(seen) > 0 {
		return Finding{Outcome: Visible, Evidence: strings.Join(append(seen, hidden...), "; ")}
	}
	ev := strings.Join(hidden, "; ")
	if refusals > 0 {
		ev += au.guard(tenancy.GuardHideStatistics)
	}
	return Finding{Outcome: Denied, Evidence: ev}
}

// plannerStats: the column statistics ANALYZE gathered from the victim's
// rows (most common values and histograms hold the data itself).
func plannerStats(ctx context.Context, au *audit) Finding {
	return au.listing(ctx, "SELECT attname || '=' || coalesce(most_common_vals::text, '') FROM pg_stats WHERE tablename = $1 ORDER BY attname", []any{au.table},
		Visible, func(vals []string) string { return "pg_stats: " + strings.Join(vals, "; ") },
		"pg_stats shows no row of "+au.table)
}

// ownRows is how many rows of its own the attacker adds to a shared
// canary for plannerEstimates: enough that the victim's few rows are a
// small, still estimated, share.
const ownRows = 100

// plannerEstimates: the planner estimates from statistics of every row of
// a table, whoever's. On a shared table the attacker adds rows of its own
// key, the owner analyzes (as autovacuum would), and the attacker's
// EXPLAIN of its own rows with the victim's value estimates more rows than
// with a value no tenant holds: the estimate comes from the victim's rows,
// which row-level security hides from the query and pg_stats hides from
// view. Where the attacker cannot read the table, EXPLAIN is refused. The
// attacker's rows are removed again.
func plannerEstimates(ctx context.Context, au *audit) Finding {
	if au.owner != nil {
		own := au.attacker.Index + 1 // the attacker's key, as plant shares it
		if _, err := au.a.Exec(ctx, fmt.Sprintf("INSERT INTO %s SELECT %d, 'own row' FROM generate_series(1, %d)", au.qualified, own, ownRows)); err != nil {
			return Finding{Outcome: Denied, Evidence: "adding the attacker's own rows: " + refused(err)}
		}
		defer func() {
			// Even when the probe's context ended: the canary is dropped
			// at the end anyway, this keeps the later probes' table as
			// the plant made it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = au.a.Exec(ctx, "DELETE FROM "+au.qualified)
		}()
		if _, err := au.owner.Exec(ctx, "ANALYZE "+au.table); err != nil {
			return Finding{Outcome: Denied, Evidence: "ANALYZE: " + refused(err)}
		}
	}
	estimate := func(value string) (float64, error) {
		var plan []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			} `json:"Plan"`
		}
		sql := "EXPLAIN (FORMAT JSON) SELECT * FROM " + au.qualified + " WHERE v = '" + strings.ReplaceAll(value, "'", "''") + "'"
		if err := au.a.QueryRow(ctx, sql).Scan(&plan); err != nil {
			return 0, err
		}
		if len(plan) == 0 {
			return 0, fmt.Errorf("EXPLAIN returned no plan")
		}
		return plan[0].Plan.Rows, nil
	}
	secret := "secret of " + au.victim.Tenant
	theirs, err := estimate(secret)
	if err != nil {
		return Finding{Outcome: Denied, Evidence: "EXPLAIN: " + refused(err)}
	}
	none, err := estimate("no tenant's value")
	if err != nil {
		return Finding{Outcome: Denied, Evidence: "EXPLAIN: " + refused(err)}
	}
	ev := fmt.Sprintf("EXPLAIN estimates %.0f rows for v = '%s' and %.0f for a value no tenant holds", theirs, secret, none)
	if theirs > none {
		return Finding{Outcome: Visible, Evidence: ev + ": the planner's statistics hold " + au.victim.Tenant + "'s values; no guard makes them per tenant"}
	}
	return Finding{Outcome: Denied, Evidence: ev}
}

func roleNames(ctx context.Context, au *audit) Finding {
	var n int
	if err := au.a.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", au.victim.Role).Scan(&n); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	if n > 0 {
		return Finding{Outcome: Visible, Evidence: "pg_roles lists role " + au.victim.Role}
	}
	return Finding{Outcome: Denied, Evidence: "pg_roles does not list " + au.victim.Role}
}

// stall runs the attacker's lock statement in a transaction, then a
// statement of the victim's on the canary with statement_timeout Wait
// beyond the victim's own lock_timeout: a victim cancelled at Wait was
// stalled; one failed at its lock_timeout waited as long as that allows.
// The attacker sets its own idle_in_transaction_session_timeout to 0, as
// any role may: a guard that sets it is a default, not a bound.
func (au *audit) stall(ctx context.Context, lock, victimSQL string) Finding {
	if _, err := au.a.Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '1s'; SET LOCAL idle_in_transaction_session_timeout = 0"); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	defer rollback(au.a)
	tag, err := au.a.Exec(ctx, lock)
	if err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	held := tag.String()
	// The victim's lock_timeout, its role's default (0: none).
	var lockTimeout int64
	if err := au.v.QueryRow(ctx, "SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout'").Scan(&lockTimeout); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	if _, err := au.v.Exec(ctx, fmt.Sprintf("BEGIN; SET LOCAL statement_timeout = %d", lockTimeout+Wait.Milliseconds())); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	defer rollback(au.v)
	start := time.Now()
	_, err = au.v.Exec(ctx, victimSQL)
	took := time.Since(start).Round(time.Millisecond)
	switch code := sqlstate(err); {
	case code == "57014": // query_canceled: it waited until the timeout
		return Finding{Outcome: Possible, Evidence: fmt.Sprintf("%s took the lock (%s); %s's statement waited %s and failed (%s)", au.attacker.Tenant, held, au.victim.Tenant, took, code)}
	case code == "55P03": // lock_not_available: at the victim's lock_timeout
		return Finding{Outcome: Possible, Evidence: fmt.Sprintf("%s took the lock (%s); %s's statement waited %s, its lock_timeout %dms%s, and failed (%s): "+
			"the wait is bounded, the stall is not: %s's statements fail for as long as %s holds the lock, which %s may hold as long as it likes "+
			"(idle_in_transaction_session_timeout, like lock_timeout, is a user setting; it set its own to 0)",
			au.attacker.Tenant, held, au.victim.Tenant, took, lockTimeout, au.guard(tenancy.GuardLockTimeout), code, au.victim.Tenant, au.attacker.Tenant, au.attacker.Tenant)}
	case err != nil:
		return Finding{Outcome: Denied, Evidence: fmt.Sprintf("%s held %s; %s's statement failed without waiting: %s", au.attacker.Tenant, held, au.victim.Tenant, refused(err))}
	}
	return Finding{Outcome: Denied, Evidence: fmt.Sprintf("%s held %s; %s's statement did not wait (took %s)", au.attacker.Tenant, held, au.victim.Tenant, took)}
}

// lockTable: ACCESS EXCLUSIVE on the victim's table stops every statement
// on it.
func lockTable(ctx context.Context, au *audit) Finding {
	return au.stall(ctx, "LOCK TABLE "+au.qualified+" IN ACCESS EXCLUSIVE MODE", "SELECT count(*) FROM "+au.table)
}

// rowLocks: a long transaction holding every row lock the attacker can
// take on the victim's table; the victim then changes its own rows.
func rowLocks(ctx context.Context, au *audit) Finding {
	return au.stall(ctx, "SELECT k FROM "+au.qualified+" FOR UPDATE", "UPDATE "+au.table+" SET v = v")
}

// exhaustion: a role with no connection limit below the server's
// non-reserved slots can take them all. The evidence says too how many
// slots the tenants' limits add up to: when they fit, every tenant can
// always open its own.
func exhaustion(ctx context.Context, au *audit) Finding {
	if !au.sameServer() {
		return Finding{Outcome: Denied, Evidence: au.attacker.Tenant + " and " + au.victim.Tenant + " have separate servers"}
	}
	var limit, maxConn, reserved, unlimited int
	var sum int64
	err := au.a.QueryRow(ctx, `SELECT rolconnlimit, current_setting('max_connections')::int,
		current_setting('superuser_reserved_connections')::int
		+ coalesce(current_setting('reserved_connections', true)::int, 0),
		(SELECT count(*) FILTER (WHERE rolconnlimit < 0) FROM pg_roles WHERE rolcanlogin AND NOT rolsuper),
		(SELECT coalesce(sum(rolconnlimit) FILTER (WHERE rolconnlimit >= 0), 0) FROM pg_roles WHERE rolcanlogin AND NOT rolsuper)
		FROM pg_roles WHERE rolname = current_user`).Scan(&limit, &maxConn, &reserved, &unlimited, &sum)
	if err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	slots := maxConn - reserved
	ev := fmt.Sprintf("rolconnlimit %d, max_connections %d, %d reserved", limit, maxConn, reserved)
	if limit < 0 || limit >= slots {
		return Finding{Outcome: Possible, Evidence: fmt.Sprintf("%s: %s may take all %d slots", ev, au.attacker.Tenant, slots)}
	}
	fit := fmt.Sprintf("the login roles' limits add up to %d of the %d slots", sum, slots)
	if unlimited > 0 {
		fit = fmt.Sprintf("%d login roles have no limit", unlimited)
	}
	return Finding{Outcome: Denied, Evidence: fmt.Sprintf("%s: %s may take %d of %d slots%s; %s", ev, au.attacker.Tenant, limit, slots, au.guard(tenancy.GuardConnectionLimit), fit)}
}

// terminate: the attacker ends a session of the victim's, opened for the
// probe.
func terminate(ctx context.Context, au *audit) Finding {
	vc, err := pgx.Connect(ctx, au.victim.DSN("tcp"))
	if err != nil {
		return Finding{Outcome: Untested, Evidence: "the victim's session: " + err.Error()}
	}
	defer vc.Close(context.Background())
	var pid uint32
	if err := vc.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return Finding{Outcome: Untested, Evidence: "the victim's session: " + err.Error()}
	}
	var ended bool
	if err := au.a.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ended); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	if ended {
		return Finding{Outcome: Possible, Evidence: fmt.Sprintf("pg_terminate_backend(%d) ended %s's session", pid, au.victim.Tenant)}
	}
	return Finding{Outcome: Denied, Evidence: fmt.Sprintf("pg_terminate_backend(%d) returned false: not a backend of %s's server", pid, au.attacker.Tenant)}
}

// deadKept finds, in VACUUM VERBOSE's messages, how many dead rows could
// not be removed yet (PostgreSQL 15 and later, and 14 and earlier).
var deadKept = regexp.MustCompile(`(\d+) are dead but not yet removable|(\d+) dead row versions cannot be removed yet`)

// vacuumHorizon: an open snapshot of the attacker's keeps the dead rows of
// the victim's updates from being removed wherever the server counts the
// attacker's transaction in the victim's horizon (the same database), so
// that the victim's tables bloat for as long as the attacker likes. The
// victim updates its rows while the attacker's snapshot is open, then the
// server's superuser vacuums the victim's table.
func vacuumHorizon(ctx context.Context, au *audit) Finding {
	if _, err := au.a.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL idle_in_transaction_session_timeout = 0; SELECT 1"); err != nil {
		return Finding{Outcome: Denied, Evidence: refused(err)}
	}
	defer rollback(au.a)
	if _, err := au.v.Exec(ctx, "UPDATE "+au.table+" SET v = v"); err != nil {
		return Finding{Outcome: Untested, Evidence: "the victim's update: " + refused(err)}
	}
	cfg, err := pgx.ParseConfig(au.victim.Instance.AdminDSN(au.victim.Database))
	if err != nil {
		return Finding{Outcome: Denied, Evidence: err.Error()}
	}
	var mu sync.Mutex
	kept := -1
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		for _, s := range []string{n.Message, n.Detail} {
			if m := deadKept.FindStringSubmatch(s); m != nil {
				// The table's and its TOAST table's: the larger.
				n, _ := strconv.Atoi(m[1] + m[2])
				mu.Lock()
				kept = max(kept, n)
				mu.Unlock()
			}
		}
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return Finding{Outcome: Denied, Evidence: "the superuser's session: " + err.Error()}
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "VACUUM (VERBOSE) "+au.qualified); err != nil {
		return Finding{Outcome: Denied, Evidence: "VACUUM: " + refused(err)}
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case kept < 0:
		return Finding{Outcome: Denied, Evidence: "VACUUM VERBOSE did not say how many dead rows it kept"}
	case kept > 0:
		ev := fmt.Sprintf("%s's open snapshot kept VACUUM from removing %d of %s's dead rows", au.attacker.Tenant, kept, au.victim.Tenant)
		if g := au.guard(tenancy.GuardIdleTransaction); g != "" {
			ev += "; idle_in_transaction_session_timeout" + g + " ends a careless tenant's idle transaction, not this one's: " +
				au.attacker.Tenant + " set its own to 0, as any role may, and a busy transaction is not idle"
		}
		return Finding{Outcome: Possible, Evidence: ev}
	}
	return Finding{Outcome: Denied, Evidence: fmt.Sprintf("VACUUM removed %s's dead rows while %s's snapshot was open", au.victim.Tenant, au.attacker.Tenant)}
}
