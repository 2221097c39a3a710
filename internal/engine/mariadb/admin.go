package mariadb

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// The admin SQL tenantbench's superuser runs to place tenants (package
// tenancy executes it) in the models MariaDB holds: database (a database
// per tenant, its user granted on it only) and instance. Every user is
// 'name'@'%': the server listens on loopback and its socket only, and
// skip-name-resolve makes hosts addresses. Names go through ident, values
// through literal; nothing else is spliced in.

// ident quotes an identifier in backquotes, a backquote doubled. A NUL is
// dropped.
func ident(s string) string {
	return "`" + strings.ReplaceAll(strings.ReplaceAll(s, "\x00", ""), "`", "``") + "`"
}

// literal quotes a string in single quotes, a quote and a backslash
// doubled (MariaDB reads backslash escapes unless NO_BACKSLASH_ESCAPES).
// A NUL is dropped.
func literal(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `''`) + "'"
}

// Ident is ident, for SQL that a workload writes itself.
func Ident(s string) string { return ident(s) }

// user is an account name: 'name'@'%'.
func user(name string) string { return literal(name) + "@'%'" }

// NativeHash is the mysql_native_password hash of password:
// "*" and the upper-case hex of SHA1(SHA1(password)). A statement that
// carries it (IDENTIFIED BY PASSWORD) never carries the password, so the
// server's logs and the process list cannot show it, as SCRAM verifiers
// do for PostgreSQL.
func NativeHash(password string) string {
	a := sha1.Sum([]byte(password))
	b := sha1.Sum(a[:])
	return "*" + strings.ToUpper(hex.EncodeToString(b[:]))
}

// MaintenanceDatabase is the system database, which every server has.
func (Engine) MaintenanceDatabase() string { return "mysql" }

func (Engine) CreateLogin(role, password string) []string {
	return []string{"CREATE USER " + user(role) + " IDENTIFIED BY PASSWORD " + literal(NativeHash(password))}
}

// CreateGroup makes a role (MariaDB's roles log in as no one).
func (Engine) CreateGroup(role string) []string {
	return []string{"CREATE ROLE " + ident(role)}
}

// GrantRole grants group to member and makes it member's default role,
// so that member's sessions have it without SET ROLE.
func (Engine) GrantRole(group, member string) []string {
	return []string{"GRANT " + ident(group) + " TO " + user(member),
		"SET DEFAULT ROLE " + ident(group) + " FOR " + user(member)}
}

func (Engine) SetPassword(role, password string) []string {
	return []string{"ALTER USER " + user(role) + " IDENTIFIED BY PASSWORD " + literal(NativeHash(password))}
}

// CreateDatabase makes db and, with an owner, grants the owner everything
// on it. A user sees only the databases it has privileges on: no other
// tenant can open it.
func (Engine) CreateDatabase(db, owner string) []string {
	out := []string{"CREATE DATABASE " + ident(db) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"}
	if owner != "" {
		out = append(out, "GRANT ALL PRIVILEGES ON "+ident(db)+".* TO "+user(owner))
	}
	return out
}

// GrantDatabase lets role use db: MariaDB opens a database for a user
// with any privilege on it; temporary adds temporary tables.
func (Engine) GrantDatabase(db, role string, temporary bool) []string {
	priv := "SHOW VIEW"
	if temporary {
		priv += ", CREATE TEMPORARY TABLES"
	}
	return []string{"GRANT " + priv + " ON " + ident(db) + ".* TO " + user(role)}
}

// LockDown has nothing to do: the system databases are open to no user
// without a grant on them (information_schema shows a user its own
// objects only).
func (Engine) LockDown() []string { return nil }

func (Engine) AssumeRole(role string) []string { return []string{"SET ROLE " + ident(role)} }
