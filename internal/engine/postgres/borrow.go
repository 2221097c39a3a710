package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

// What a server the user runs needs of PostgreSQL (provider external).

// ParseAdmin reads dsn with pgx's own parser, which looks the password up
// in PGPASSFILE or ~/.pgpass when dsn has none. Only the first host is
// used.
func (Engine) ParseAdmin(dsn string) (srv.AdminLogin, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		// pgconn's error quotes the string, password and all: never
		// show it.
		return srv.AdminLogin{}, fmt.Errorf("not a PostgreSQL connection string (a URI postgres://user@host:port/db or key=value pairs)")
	}
	return srv.AdminLogin{Host: cfg.Host, Port: int(cfg.Port), User: cfg.User, Password: cfg.Password}, nil
}

// MissingPrivileges: tenantbench creates roles (CREATEROLE) and databases
// (CREATEDB); a superuser has both.
func (Engine) MissingPrivileges(ctx context.Context, c srv.Conn) ([]string, error) {
	rows, err := c.QueryStrings(ctx, `SELECT concat_ws(',', rolsuper, rolcreaterole, rolcreatedb) FROM pg_roles WHERE rolname = current_user`)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("the current role is not in pg_roles")
	}
	var super, createRole, createDB bool
	// concat_ws prints each boolean as true or false.
	if _, err := fmt.Sscanf(rows[0], "%t,%t,%t", &super, &createRole, &createDB); err != nil {
		return nil, fmt.Errorf("reading pg_roles: %q: %w", rows[0], err)
	}
	if super {
		return nil, nil
	}
	var missing []string
	if !createRole {
		missing = append(missing, "CREATEROLE")
	}
	if !createDB {
		missing = append(missing, "CREATEDB")
	}
	return missing, nil
}

func (Engine) MaxConnections(ctx context.Context, c srv.Conn) (int, error) {
	rows, err := c.QueryStrings(ctx, "SHOW max_connections")
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, fmt.Errorf("SHOW max_connections returned %d rows", len(rows))
	}
	return strconv.Atoi(rows[0])
}

// DropDatabase ends the database's sessions first (WITH (FORCE), from
// PostgreSQL 13 on: the supported versions).
func (Engine) DropDatabase(db string) []string {
	return []string{"DROP DATABASE IF EXISTS " + ident(db) + " WITH (FORCE)"}
}

func (Engine) DropSchema(schema string) []string {
	return []string{"DROP SCHEMA IF EXISTS " + ident(schema) + " CASCADE"}
}

// DropRole drops what the role owns in the session's database first (its
// databases are dropped before it), then the role.
func (Engine) DropRole(role string) []string {
	return []string{
		"DO $$BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = " + literal(role) + ") THEN EXECUTE 'DROP OWNED BY ' || quote_ident(" + literal(role) + "); END IF; END$$",
		"DROP ROLE IF EXISTS " + ident(role)}
}
