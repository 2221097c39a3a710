package postgres

import (
	"strconv"
)

// The SQL of the tenancy guards (engine.Guarder): what the superuser runs
// to narrow what one tenant's role can do to the others beyond what
// privileges already refuse.

// ConnectionLimit: a role's CONNECTION LIMIT is counted by the server at
// every login and only a role with CREATEROLE may change it, so a tenant
// cannot lift its own.
func (Engine) ConnectionLimit(role string, n int) []string {
	return []string{"ALTER ROLE " + ident(role) + " CONNECTION LIMIT " + strconv.Itoa(n)}
}

// hideStatistics takes from PUBLIC, in the current database, SELECT on
// every cumulative statistics view of pg_catalog (pg_stat_* and
// pg_statio_*: other tenants' tables with their scans and inserted,
// updated, live and dead rows; pg_stat_database: every database's
// transactions and rows; pg_stat_activity: other roles' sessions, with
// their role, database and application) and EXECUTE on the functions
// they read (pg_stat_get_*), which anyone could otherwise call with a
// table's oid. It lists them from the catalog so that it covers what each
// server version has (pg_stat_io from 16 on). The planner's statistics
// (pg_stats, pg_stats_ext) are left: they already show a role only what
// it may read (pg_stats: the columns it may select; pg_stats_ext: the
// tables of roles it is a member of) and nothing of a table under
// row-level security. pg_class (reltuples, relpages) stays readable:
// taking it would break every client that reads the catalog.
const hideStatistics = `DO $guard$
DECLARE
	stmt text;
BEGIN
	FOR stmt IN
		SELECT format('REVOKE SELECT ON %s FROM PUBLIC', c.oid::regclass)
		FROM pg_class c
		WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'v'
			AND (c.relname LIKE 'pg\_stat\_%' OR c.relname LIKE 'pg\_statio\_%')
		UNION ALL
		SELECT format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', p.oid::regprocedure)
		FROM pg_proc p
		WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname LIKE 'pg\_stat\_get\_%'
	LOOP
		EXECUTE stmt;
	END LOOP;
END
$guard$`

// HideStatistics: the views and functions are each database's own, so it
// runs in every database tenants use.
func (Engine) HideStatistics() []string {
	return []string{hideStatistics}
}

// RoleSetting: ALTER ROLE ... SET is the default of the role's new
// sessions; the role may still SET another value in its own session.
func (Engine) RoleSetting(role, parameter, value string) []string {
	return []string{"ALTER ROLE " + ident(role) + " SET " + ident(parameter) + " = " + literal(value)}
}
