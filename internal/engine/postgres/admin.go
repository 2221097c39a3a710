package postgres

import (
	"fmt"
	"strings"
)

// The admin SQL tenantbench's superuser runs to place tenants (package
// tenancy executes it): roles, databases, schemas, grants, the lock-down,
// row-level security for shared tables and copies of databases. Names go
// through ident, values through literal; nothing else is spliced in.

// ident quotes an identifier: in double quotes, a quote doubled. A NUL,
// which no identifier may hold, is dropped.
func ident(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, "\x00", ""), `"`, `""`) + `"`
}

// literal quotes a string constant as an escape string (E'...'), which
// reads the same whatever standard_conforming_strings is set to: a
// backslash and a quote are doubled. A NUL is dropped.
func literal(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	return "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `''`) + "'"
}

// Ident is ident, for SQL that a workload writes itself.
func Ident(s string) string { return ident(s) }

func (Engine) MaintenanceDatabase() string { return "postgres" }

// CreateLogin makes a login role. Utility statements take no bind
// parameters, so what goes in the statement text is the password's SCRAM
// verifier (scram.go), never the password: the text may be logged.
func (Engine) CreateLogin(role, password string) []string {
	return []string{"CREATE ROLE " + ident(role) + " LOGIN PASSWORD " + literal(scramVerifier(password))}
}

func (Engine) CreateGroup(role string) []string {
	return []string{"CREATE ROLE " + ident(role) + " NOLOGIN"}
}

func (Engine) GrantRole(group, member string) []string {
	return []string{"GRANT " + ident(group) + " TO " + ident(member)}
}

// SetPassword sends the password's SCRAM verifier, as CreateLogin does.
func (Engine) SetPassword(role, password string) []string {
	return []string{"ALTER ROLE " + ident(role) + " PASSWORD " + literal(scramVerifier(password))}
}

// CreateDatabase makes db, owned by owner ("" for the admin). PUBLIC's
// default CONNECT and TEMPORARY go, so no other role can open it: the
// owner connects by ownership.
func (Engine) CreateDatabase(db, owner string) []string {
	create := "CREATE DATABASE " + ident(db)
	if owner != "" {
		create += " OWNER " + ident(owner)
	}
	return []string{create, "REVOKE CONNECT, TEMPORARY ON DATABASE " + ident(db) + " FROM PUBLIC"}
}

// GrantDatabase lets role connect to db and, with temporary, create
// temporary tables in it.
func (Engine) GrantDatabase(db, role string, temporary bool) []string {
	privs := "CONNECT"
	if temporary {
		privs += ", TEMPORARY"
	}
	return []string{"GRANT " + privs + " ON DATABASE " + ident(db) + " TO " + ident(role)}
}

// CreateSchema, run in db, makes schema, owned by owner, and owner's
// search_path in db, so that the owner's connection alone selects it.
func (Engine) CreateSchema(db, schema, owner string) []string {
	return []string{"CREATE SCHEMA " + ident(schema) + " AUTHORIZATION " + ident(owner),
		"ALTER ROLE " + ident(owner) + " IN DATABASE " + ident(db) + " SET search_path = " + ident(schema)}
}

// CloseDefaultSchema, run in a database, takes every privilege on its
// public schema from PUBLIC: no tenant creates in or reads from it.
func (Engine) CloseDefaultSchema() []string {
	return []string{"REVOKE ALL ON SCHEMA public FROM PUBLIC"}
}

// ShareDefaultSchema, run in a database, gives its public schema to owner
// (its own on every server version) and lets group use it only.
func (e Engine) ShareDefaultSchema(owner, group string) []string {
	return append([]string{"ALTER SCHEMA public OWNER TO " + ident(owner)},
		append(e.CloseDefaultSchema(), "GRANT USAGE ON SCHEMA public TO "+ident(group))...)
}

// LockDown, run in the maintenance database, stops every role but the
// owners from connecting to the maintenance databases, so a tenant's role
// reaches its own database only.
func (Engine) LockDown() []string {
	var out []string
	for _, db := range []string{"postgres", "template1"} {
		out = append(out, "REVOKE CONNECT ON DATABASE "+ident(db)+" FROM PUBLIC")
	}
	return out
}

// AssumeRole makes a session act as role, so that what it creates
// belongs to role.
func (Engine) AssumeRole(role string) []string {
	return []string{"SET ROLE " + ident(role)}
}

// RenameTenant renames a copied server's tenant: its role and database.
func (Engine) RenameTenant(fromRole, fromDB, toRole, toDB string) []string {
	return []string{"ALTER ROLE " + ident(fromRole) + " RENAME TO " + ident(toRole),
		"ALTER DATABASE " + ident(fromDB) + " RENAME TO " + ident(toDB)}
}

// Shared tables: row-level security, enabled and forced on every keyed
// table, a policy per tenant for its key range.

// TablesQuery lists the tables of the default schema, by name.
func (Engine) TablesQuery() string {
	return "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
}

// ShareRows makes table's rows reachable to group only through policies
// (the owner is bound by them too), and lets group read, add, change and
// remove them.
func (Engine) ShareRows(table, group string) []string {
	t := ident(table)
	return []string{"ALTER TABLE " + t + " ENABLE ROW LEVEL SECURITY",
		"ALTER TABLE " + t + " FORCE ROW LEVEL SECURITY",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON " + t + " TO " + ident(group)}
}

// GrantRead lets group read table.
func (Engine) GrantRead(table, group string) []string {
	return []string{"GRANT SELECT ON " + ident(table) + " TO " + ident(group)}
}

// RowPolicy gives role the rows of table whose column is in lo..hi, for
// reading and for writing.
func (Engine) RowPolicy(role, table, column string, lo, hi int64) string {
	in := fmt.Sprintf("%s BETWEEN %d AND %d", ident(column), lo, hi)
	return fmt.Sprintf("CREATE POLICY %s ON %s TO %s USING (%s) WITH CHECK (%s)",
		ident(role), ident(table), ident(role), in, in)
}
