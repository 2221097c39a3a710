package postgres

import (
	"net/url"
	"strings"
)

// SecretsQuery reads the tenants' SCRAM verifiers as the server stores
// them: a pooler that passes SCRAM on (pgbouncer's auth_file) must hold
// the very verifier, salt included, that the server checks.
func (Engine) SecretsQuery() string {
	return `SELECT rolname || ' ' || rolpassword FROM pg_authid WHERE rolname = ANY($1::text[]) AND rolpassword IS NOT NULL ORDER BY 1`
}

// Unnamed asks pgx for its cache_describe mode: statements are described
// once and then run as the unnamed statement, which survives a pooler
// moving the client to another server connection between transactions
// (pgx's advice for pgbouncer's transaction mode).
func (Engine) Unnamed(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Set("default_query_exec_mode", "cache_describe")
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // as DSN writes it
	return u.String()
}
