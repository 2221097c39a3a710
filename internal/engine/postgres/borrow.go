package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

// What a server the user runs needs of PostgreSQL (provider external).

// ParseAdmin reads dsn with pgx's own parser, which looks the password up
// in PGPASSFILE or ~/.pgpass when dsn has none. Only the first host is
// used. Its TLS is what dsn says (adminTLS), which every connection made
// for the server then repeats.
func (Engine) ParseAdmin(dsn string) (srv.AdminLogin, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		// pgconn's error quotes the string, password and all: never
		// show it.
		return srv.AdminLogin{}, errNotDSN
	}
	tls, err := adminTLS(dsn)
	if err != nil {
		return srv.AdminLogin{}, err
	}
	return srv.AdminLogin{Host: cfg.Host, Port: int(cfg.Port), User: cfg.User, Password: cfg.Password, TLS: tls}, nil
}

var errNotDSN = errors.New("not a PostgreSQL connection string (a URI postgres://user@host:port/db or key=value pairs)")

// adminTLS is the TLS of an admin connection string as libpq reads it:
// its sslmode, sslrootcert, sslcert and sslkey, else PGSSLMODE,
// PGSSLROOTCERT, PGSSLCERT and PGSSLKEY, else sslmode prefer (libpq's
// default; pgx's URI alias ssl=true is require). pgconn keeps the TLS
// configuration it builds from them, not the words, which every
// connection tenantbench makes for the server must repeat.
func adminTLS(dsn string) (srv.TLS, error) {
	settings, err := connSettings(dsn)
	if err != nil {
		return srv.TLS{}, errNotDSN
	}
	word := func(key, env string) string {
		if v, ok := settings[key]; ok {
			return v
		}
		return os.Getenv(env)
	}
	t := srv.TLS{Mode: word("sslmode", "PGSSLMODE"), RootCert: word("sslrootcert", "PGSSLROOTCERT"),
		Cert: word("sslcert", "PGSSLCERT"), Key: word("sslkey", "PGSSLKEY")}
	if _, ok := settings["sslmode"]; !ok && settings["ssl"] == "true" {
		t.Mode = "require"
	}
	if t.Mode == "" {
		t.Mode = "prefer"
	}
	return t, nil
}

// connSettings are a connection string's keys and values: a URI's query,
// or key=value pairs (values quoted with ' and escaped with \, as libpq
// writes them). The last of a repeated key wins, as in libpq.
func connSettings(dsn string) (map[string]string, error) {
	out := map[string]string{}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return nil, err
		}
		// pgx unescapes the query as a path (a "+" stays a "+").
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if k, err = url.PathUnescape(k); err != nil {
				return nil, err
			}
			if v, err = url.PathUnescape(v); err != nil {
				return nil, err
			}
			if k != "" {
				out[k] = v
			}
		}
		return out, nil
	}
	s := strings.TrimSpace(dsn)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, errors.New("a key without a value")
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\n\r")
		var val strings.Builder
		quoted := strings.HasPrefix(s, "'")
		if quoted {
			s = s[1:]
		}
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				val.WriteByte(s[i])
				continue
			}
			if quoted && c == '\'' || !quoted && strings.IndexByte(" \t\n\r", c) >= 0 {
				break
			}
			val.WriteByte(c)
		}
		if quoted {
			if i == len(s) {
				return nil, errors.New("an unterminated quoted value")
			}
			i++ // the closing quote
		}
		out[key] = val.String()
		s = strings.TrimLeft(s[i:], " \t\n\r")
	}
	return out, nil
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
