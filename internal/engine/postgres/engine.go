package postgres

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

// Name is the engine's name in a spec (sut.engine).
const Name = "postgres"

// Engine is PostgreSQL as the engine registry sees it: what a spec may
// set, what a server needs, how to connect and how errors are classed. It
// has no state; the zero value is ready.
type Engine struct{}

func (Engine) Name() string { return Name }

// ConnectionReserve is added to the tenants' connections: 3 slots
// PostgreSQL keeps for superusers by default
// (superuser_reserved_connections) and 2 for tenantbench's own admin
// connections (setup, statistics sampling).
const ConnectionReserve = 5

// MinMemory is the least memory limit in bytes a PostgreSQL server starts
// and runs a benchmark with (shared buffers, backends, WAL buffers).
const MinMemory int64 = 64 << 20

func (Engine) ConnectionReserve() int { return ConnectionReserve }
func (Engine) MinMemory() int64       { return MinMemory }

// Footprint is a lower bound of what a server costs the machine, so that
// a plan refused for it surely would not fit: the postmaster and its five
// background processes (checkpointer, background writer, WAL writer,
// autovacuum launcher, logical replication launcher), and memory below
// what PostgreSQL 15 measured here: an idle server's processes held 18 MiB
// (the sum of their PSS), each connected backend about 2 MiB more.
func (Engine) Footprint() (serverProcesses int, serverBytes, connectionBytes int64) {
	return 6, 16 << 20, 3 << 19
}

// settingName is what PostgreSQL accepts as a parameter name, lowercased
// (PostgreSQL ignores case, so "Work_Mem" and "work_mem" would be the same
// setting twice); dots separate an extension's prefix.
var settingName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$`)

// SettingRule says what a spec's settings key must be, or "" when the
// spec may set it: a PostgreSQL parameter name that tenantbench does not
// set itself.
func (Engine) SettingRule(key string) string { return SettingRule(key) }

// SettingRule is Engine.SettingRule, for callers that hold no Engine.
func SettingRule(key string) string {
	if !settingName.MatchString(key) {
		return "must be a PostgreSQL parameter name in lowercase: letters, digits and _, " +
			"with a dot after an extension's prefix (pg_stat_statements.max)"
	}
	if why := owned(key); why != "" {
		return "cannot be set in a spec: " + why
	}
	return ""
}

// owned says why a spec may not set a parameter, or "" when it may. It is
// a deny-list, by name, of what can reach authentication, listening, the
// server's file locations, its logs, code it loads as a superuser or shell
// commands it runs: PostgreSQL has some 350 parameters, and a benchmark
// tunes many of them (memory, planner, WAL, autovacuum), so an allow-list
// would be long and refuse what a new version adds for no reason. The
// plan also refuses, from the server's own description, any parameter of
// the groups this list covers that the list does not name yet
// (deniedGroups). Managed, the start's own check, uses the same list.
func owned(key string) string {
	switch key {
	case "include", "include_dir", "include_if_exists":
		return "a configuration file it included would be read after tenantbench's settings and could override them, authentication included"
	case "port":
		return "tenantbench gives every instance a free port of its own"
	case "listen_addresses", "unix_socket_group", "unix_socket_permissions", "bonjour", "bonjour_name":
		return "tenantbench listens on loopback only, and on its own socket, so that nothing is exposed beyond this machine"
	case "unix_socket_directories":
		return "tenantbench gives every instance a socket directory of its own"
	case "data_directory", "config_file", "hba_file", "ident_file", "extension_destdir", "stats_temp_directory":
		return "tenantbench lays out each instance's data directory and writes its configuration and authentication files"
	case "password_encryption", "db_user_namespace", "krb_server_keyfile", "krb_caseins_users",
		"gss_accept_delegation", "scram_iterations", "authentication_timeout", "ssl_passphrase_command",
		"ssl_passphrase_command_supports_reload":
		return "tenantbench sets up authentication (SCRAM passwords over loopback and its socket)"
	case "external_pid_file":
		return "tenantbench tracks the server processes it starts itself"
	case "logging_collector", "log_destination", "log_directory", "log_filename", "log_file_mode", "event_source":
		return "tenantbench keeps each server's log as its stderr, in a file in the instance's directory"
	case "dynamic_library_path", "session_preload_libraries", "local_preload_libraries", "jit_provider", "archive_library":
		return "it loads code into the server from a path or library a superuser chooses; shared_preload_libraries takes installed libraries by name"
	case "archive_command", "restore_command", "archive_cleanup_command", "recovery_end_command":
		return "it runs shell commands as the server's user"
	case "primary_conninfo", "primary_slot_name", "promote_trigger_file":
		return "tenantbench's servers are primaries: this connects the server to another one or watches a file"
	}
	if key == "ssl" || strings.HasPrefix(key, "ssl_") {
		return "tenantbench's clients connect over loopback and its socket without TLS; TLS files and keys are the operator's"
	}
	return ""
}

// deniedGroups are the groups of the server's description (postgres
// --describe-config) whose every parameter is refused, also those a later
// version adds that owned does not name yet.
var deniedGroups = map[string]string{
	"File Locations": "tenantbench lays out each instance's data directory and writes its configuration and authentication files",
	"Connections and Authentication / Authentication": "tenantbench sets up authentication (SCRAM passwords over loopback and its socket)",
	"Connections and Authentication / SSL":            "tenantbench's clients connect over loopback and its socket without TLS; TLS files and keys are the operator's",
}

// DSN is a connection string for user on database at host (a name or
// address, or a unix socket directory when it starts with "/") and port,
// with tls's sslmode and files (sslmode disable for the zero value: a
// server tenantbench started). The password is in the string: never log
// it.
func (Engine) DSN(host string, port int, tls srv.TLS, database, user, password string) string {
	q := url.Values{}
	q.Set("host", host)
	q.Set("port", fmt.Sprint(port))
	mode := tls.Mode
	if mode == "" {
		mode = "disable"
	}
	q.Set("sslmode", mode)
	for key, v := range map[string]string{"sslrootcert": tls.RootCert, "sslcert": tls.Cert, "sslkey": tls.Key} {
		if v != "" {
			q.Set(key, v)
		}
	}
	// pgx reads the query with url.PathUnescape, which keeps a "+": a
	// space must be written %20 (a socket directory may hold one).
	raw := strings.ReplaceAll(q.Encode(), "+", "%20")
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password), Path: "/" + database, RawQuery: raw}
	return u.String()
}

// ErrorClass is the SQLSTATE class of a server error (its first two
// characters, e.g. "40" transaction rollback), "" when err is none.
func (Engine) ErrorClass(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && len(pe.Code) >= 2 {
		return pe.Code[:2]
	}
	return ""
}

// ErrorCode is the full SQLSTATE of a server error, "" when err is none.
func ErrorCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// StatisticsViews are the cumulative statistics views the monitor
// snapshots at marks, those the server has: pg_stat_wal from 14,
// pg_stat_io from 16, pg_stat_checkpointer from 17 (which moved the
// checkpoint columns out of pg_stat_bgwriter).
func (Engine) StatisticsViews() []string {
	return []string{"pg_stat_database", "pg_stat_wal", "pg_stat_bgwriter", "pg_stat_checkpointer", "pg_stat_io"}
}

// ActivityQuery reads what the monitor needs of every server process. It
// calls the function under the pg_stat_activity view without the view's
// joins with pg_database and pg_authid, which cost the server more than
// the function itself (measured with 27 processes: 145 us a query through
// the view, 90 us through the function, 23 us for SELECT 1): roles and
// databases come as oids, named by NamesQuery. The monitor's own row is
// skipped by the monitor, which is cheaper than a filter calling
// pg_backend_pid() per row.
func (Engine) ActivityQuery() string {
	return `SELECT pid, backend_type, usesysid, datid, state, wait_event_type, wait_event
FROM pg_catalog.pg_stat_get_activity(NULL)`
}

// NamesQuery names the roles and databases ActivityQuery gives as oids.
func (Engine) NamesQuery() string {
	return `SELECT true, oid, rolname::text FROM pg_catalog.pg_roles
UNION ALL SELECT false, oid, datname::text FROM pg_catalog.pg_database`
}

// SharedMemoryQuery is the shared memory the server allocated, but its
// buffer cache ("Buffer Blocks") and the segment's unused rest (the row
// without a name). A server before 13 has no pg_shmem_allocations
// (SQLSTATE 42P01).
func (Engine) SharedMemoryQuery() string {
	return `SELECT coalesce(sum(allocated_size), 0)::int8 FROM pg_catalog.pg_shmem_allocations
WHERE name IS NOT NULL AND name <> 'Buffer Blocks'`
}
