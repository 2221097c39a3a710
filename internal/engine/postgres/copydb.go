package postgres

// Copies of a database (the database model's cloned provisioning):
// CREATE DATABASE ... TEMPLATE, then the copy's objects handed from the
// template's role to the tenant's.

// VersionQuery returns the server's version as one integer
// (server_version_num: 150004 for 15.4).
func (Engine) VersionQuery() string {
	return "SELECT current_setting('server_version_num')::int"
}

// CopyDatabase makes db a copy of template, owned by owner and closed to
// every other role. version is VersionQuery's answer.
func (e Engine) CopyDatabase(db, template, owner string, version int) []string {
	create := "CREATE DATABASE " + ident(db) + " TEMPLATE " + ident(template) + " OWNER " + ident(owner)
	if version >= 150000 {
		// FILE_COPY copies the files and checkpoints; the default since
		// 15, WAL_LOG, writes every block to the WAL: slower for
		// databases of benchmark size, and far more WAL.
		create += " STRATEGY FILE_COPY"
	}
	return []string{create, "REVOKE CONNECT, TEMPORARY ON DATABASE " + ident(db) + " FROM PUBLIC"}
}

// EndSessionsQuery ends every other session on database $1 (a template
// cannot be copied while in use).
func (Engine) EndSessionsQuery() string {
	return "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()"
}

// InUse says whether err is the server refusing because an object is in
// use (SQLSTATE 55006), worth a retry once its sessions are gone.
func (Engine) InUse(err error) bool { return ErrorCode(err) == "55006" }

// HandOverQuery lists the statements that give the objects of the current
// database owned by role $1 to role $2: schemas, then relations (a
// table's indexes, TOAST table and owned sequences go with it), then
// free-standing sequences, routines and types (a relation's row type and
// array types go with their relation or element type).
func (Engine) HandOverQuery() string { return ownedBy }

// LeftOfQuery counts what of the current database still depends on role
// $1: objects it owns, privileges granted to it, policies naming it.
func (Engine) LeftOfQuery() string { return leftOf }

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

const leftOf = `SELECT count(*) FROM pg_shdepend
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND refclassid = 'pg_authid'::regclass AND refobjid = (SELECT oid FROM pg_roles WHERE rolname = $1)`
