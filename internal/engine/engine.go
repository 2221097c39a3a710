// Package engine is the seam between tenantbench and a DBMS: an Engine
// says what a spec may set for it, what a server of it needs, how to
// connect and how to class its errors; optional interfaces (Server,
// Admin, Schemas, Guarder, Sharer, DatabaseCopier, Statistics) give what
// the local provider runs, the SQL the tenancy models and the monitor run.
// PostgreSQL (package postgres) and MariaDB (package mariadb) are the
// engines.
//
// An engine's methods take and return plain Go types only, so that an
// engine package needs nothing from this one and this one can register
// it (Builtin).
package engine

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"syscall"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/engine/server"
)

// Engine is one DBMS.
type Engine interface {
	// Name is the engine's name in a spec (sut.engine).
	Name() string
	// SettingRule says what a key of sut.settings must be, "" when the
	// spec may set it: a parameter name of this engine that cannot reach
	// what tenantbench owns (included files, listening, authentication,
	// file locations, logging, loading code, shell commands). The
	// engine's server start refuses the same keys.
	SettingRule(key string) string
	// ConnectionReserve is the connections a server needs beyond the
	// tenants' own: those the engine keeps for superusers and
	// tenantbench's admin connections.
	ConnectionReserve() int
	// MinMemory is the least memory limit, in bytes, a server of this
	// engine runs a benchmark with.
	MinMemory() int64
	// DSN is a connection string for user on database at host (a name or
	// address, or a unix socket directory when it starts with "/") and
	// port, secured as tls says (the zero value: no TLS). It holds the
	// password: never log it.
	DSN(host string, port int, tls server.TLS, database, user, password string) string
	// ErrorClass is the class of a server error (PostgreSQL: the
	// SQLSTATE's first two characters), "" when err is not one.
	ErrorClass(err error) string
	// Footprint is what one idle server costs the machine beyond its
	// clients' sessions (processes, bytes) and what a connection costs
	// (bytes): the plan checks a spec's servers and connections against
	// the machine with it. The figures are lower bounds: a plan they
	// refuse cannot run; one they pass may still run short.
	Footprint() (serverProcesses int, serverBytes, connectionBytes int64)
	// Connect opens a session with dsn (one DSN made), through the
	// engine's own client library: the admin code (tenancy, a provider's
	// readiness check) runs its statements on it and imports no
	// engine's library.
	Connect(ctx context.Context, dsn string) (server.Conn, error)
	// ClientConn opens a tenant's connection with dsn: the engine's own
	// client connection, which a workload's form for this engine uses;
	// its network socket goes through wrap when wrap is not nil.
	ClientConn(ctx context.Context, dsn string, wrap func(net.Conn) net.Conn) (server.Client, error)
}

// Server is an engine whose servers a provider runs as processes on this
// machine (the local provider): everything the provider needs to know of
// the engine, from finding its programs to recognising its process when a
// record of it is all that is left. The provider does the rest the same
// way for every engine: the directories, the unprivileged user, the
// cgroup, the port, the log, the signals' order and the waits.
type Server interface {
	// MaintenanceDatabase is the database a superuser session opens
	// before any tenant's exists.
	MaintenanceDatabase() string
	// FindPrograms finds the server programs of version ("" for the
	// newest), downloading them where the engine can and find allows.
	FindPrograms(ctx context.Context, version string, find server.Find) (server.Programs, error)
	// InitCommand is the command (program first) that makes the empty
	// data directory dataDir whose superuser is user with password, and
	// the files it reads, to be written in dir (which the server's user
	// owns) and removed when it ends: the password goes through them,
	// never through the command line.
	InitCommand(p server.Programs, dir, dataDir, user, password string) (args []string, files []server.InitFile, err error)
	// WriteConfig writes the server's configuration for c into its data
	// directory (again before each start: a retry on another port
	// rewrites it), the files keeping their owner.
	WriteConfig(p server.Programs, c server.Config) error
	// StartCommand runs the server of c in the foreground, its messages
	// on stderr.
	StartCommand(p server.Programs, c server.Config) []string
	// CheckSetting refuses, at the server's start, a setting the plan
	// would refuse: the start checks again what the plan checked.
	CheckSetting(name, value string) error
	// LogName is the name of the server's log file in the instance's
	// directory.
	LogName() string
	// PortTaken says, from the end of the log of a server that did not
	// start, whether its port was taken meanwhile (then another is tried).
	PortTaken(logTail string) bool
	// StopSignals are the signals of a clean shutdown and of a faster
	// one, sent in that order before SIGKILL.
	StopSignals() (clean, fast syscall.Signal)
	// IsServer says whether a process's command line is this engine's
	// server on dataDir, so that a recorded pid reused since by another
	// program is never signalled.
	IsServer(cmdline []string, dataDir string) bool
	// PidFile is the file in which a server on dataDir writes its pid.
	PidFile(dataDir string) string
	// SocketFiles are the files of the server's socket in socketDir, which
	// a killed server leaves behind.
	SocketFiles(socketDir string, port int) []string
}

// Image is an engine whose server runs from its official container image
// (provider kubernetes, whose Factory.Engine refuses an engine without
// it at plan).
type Image interface {
	// Container is how the image of the major version ("" for the
	// engine's default) runs a server with settings.
	Container(major string, settings map[string]string) server.Container
}

// SettingsChecker is an engine that checks a spec's settings against the
// server program a plan will run, before anything starts: names, values
// and what they load. The plan asks for it; an engine without it is
// judged by SettingRule alone.
type SettingsChecker interface {
	// CheckSettings checks settings (one value per key, each key one the
	// engine's SettingRule allows) against the server of version ("" for
	// the newest). It returns what it refuses and what it only warns
	// about, each a message by settings key; the key "" is about the
	// version itself (not installed, not fetchable). It downloads
	// nothing.
	CheckSettings(version string, settings map[string]string) (refused, warned map[string]string)
}

// SharedMemory is an engine whose server maps shared memory sized by its
// settings (PostgreSQL: shared_buffers, wal_buffers, max_connections):
// the plan counts every server's against the machine's memory, so that
// 100 servers of 128MB of buffers each are refused on a machine that
// cannot hold them filled. An engine without it is counted by Footprint
// alone.
type SharedMemory interface {
	// SharedMemoryBytes is the shared memory one server maps with
	// settings (a run's, one value per key) and maxConnections slots, or
	// an error naming a setting it cannot read.
	SharedMemoryBytes(settings map[string]string, maxConnections int) (int64, error)
}

// Admin is the SQL an engine's superuser runs to place tenants. Each
// method returns the statements to run in order, on one session.
type Admin interface {
	// MaintenanceDatabase is the database an admin session opens before
	// any tenant's exists.
	MaintenanceDatabase() string
	CreateLogin(role, password string) []string // a role that logs in
	CreateGroup(role string) []string           // a role that cannot log in
	GrantRole(group, member string) []string
	SetPassword(role, password string) []string
	// CreateDatabase makes db, owned by owner ("" for the admin), closed
	// to every role but its owner.
	CreateDatabase(db, owner string) []string
	// GrantDatabase lets role connect to db; temporary: and create
	// temporary tables there.
	GrantDatabase(db, role string, temporary bool) []string
	// LockDown, run in the maintenance database, closes the maintenance
	// databases to every role but their owners.
	LockDown() []string
	// AssumeRole makes the session act as role.
	AssumeRole(role string) []string
}

// Renamer is an engine that renames a tenant's role and database: a
// copied server handed to another tenant (MariaDB cannot rename a
// database).
type Renamer interface {
	// RenameTenant renames a tenant's role and database.
	RenameTenant(fromRole, fromDB, toRole, toDB string) []string
}

// Schemas is an engine whose databases hold schemas apart from one
// another (PostgreSQL), so that tenants can share a database, each in a
// schema of its own. In MariaDB a schema is a database: it has none.
type Schemas interface {
	// CreateSchema, run in db, makes schema, owned by owner, the schema
	// owner's sessions in db use.
	CreateSchema(db, schema, owner string) []string
	// CloseDefaultSchema, run in a database, takes every privilege on its
	// default schema from every role.
	CloseDefaultSchema() []string
	// ShareDefaultSchema, run in a database, gives its default schema to
	// owner and lets group use it only.
	ShareDefaultSchema(owner, group string) []string
}

// Guarder is an engine whose server can narrow what one tenant's role can
// do to the others beyond privileges: the SQL of the tenancy guards
// (package tenancy owns which guards there are and when they are set).
// Each method returns the statements to run in order, as the superuser.
type Guarder interface {
	// ConnectionLimit lets role hold at most n sessions at once.
	ConnectionLimit(role string, n int) []string
	// HideStatistics, run in a database, takes from every role but the
	// superusers the cumulative statistics of that database's tables,
	// indexes, functions and of the server's databases: the views and the
	// functions under them.
	HideStatistics() []string
	// RoleSetting makes value the default of parameter for role's
	// sessions.
	RoleSetting(role, parameter, value string) []string
}

// Sharer is an engine that can keep tenants' rows apart in shared tables.
type Sharer interface {
	// TablesQuery lists the default schema's tables by name.
	TablesQuery() string
	// ShareRows lets group reach table's rows through policies only.
	ShareRows(table, group string) []string
	// GrantRead lets group read table.
	GrantRead(table, group string) []string
	// RowPolicy gives role the rows of table whose column is in lo..hi.
	RowPolicy(role, table, column string, lo, hi int64) string
}

// DatabaseCopier is an engine that copies a database on its server.
type DatabaseCopier interface {
	// VersionQuery returns the server's version as one integer.
	VersionQuery() string
	// CopyDatabase makes db a copy of template owned by owner, closed to
	// every other role; version is VersionQuery's answer.
	CopyDatabase(db, template, owner string, version int) []string
	// EndSessionsQuery ends every other session on database $1.
	EndSessionsQuery() string
	// InUse says whether err is a refusal because the template is in use.
	InUse(err error) bool
	// HandOverQuery lists the statements that give what role $1 owns in
	// the current database to role $2.
	HandOverQuery() string
	// LeftOfQuery counts what of the current database still depends on
	// role $1.
	LeftOfQuery() string
}

// Statistics is an engine whose server the monitor samples: its
// sessions (wait events, per-tenant CPU) and its cumulative statistics
// views, over a statistics session of the engine's client library.
type Statistics interface {
	// StatisticsViews are the cumulative statistics views the monitor
	// snapshots at phase marks, those the server has.
	StatisticsViews() []string
	// OpenStats opens a statistics session as the superuser on the
	// engine's maintenance database (dsn is one DSN made).
	OpenStats(ctx context.Context, dsn string) (server.Stats, error)
	// MaintenanceDatabase is the database OpenStats's DSN names.
	MaintenanceDatabase() string
}

// Pooled is an engine whose servers a connection pooler (package pooler)
// can stand in front of, passing its clients' own authentication on.
type Pooled interface {
	// SecretsQuery lists, for the roles named in $1 (a text array), each
	// role and its stored password verifier as "role verifier" (one
	// space): what the pooler checks its clients with and logs in to the
	// server with.
	SecretsQuery() string
	// Unnamed is dsn (one DSN made) for clients whose statements must
	// not be named (a pooler that moves a client between server
	// connections): the client library's statements go unnamed.
	Unnamed(dsn string) string
}

// Replicator is an engine whose running server can be copied into hot
// standbys that follow it (PostgreSQL's streaming replication): what the
// local provider needs for sut.replicas, and what the plan asks of the
// engine before it accepts them.
type Replicator interface {
	// BaseBackup is the command, run as the server user, that copies the
	// running primary of s into s.DataDir through a new replication slot
	// s.Slot and leaves the copy configured to stream from the primary
	// through it (a standby once started); env is added to the command's
	// environment (the password: never on a command line).
	BaseBackup(p server.Programs, s server.Standby) (args, env []string)
	// Synchronous is the statements that make the primary wait at each
	// commit for every standby named (their Config.Name), or for none
	// when names is empty.
	Synchronous(names []string) []string
	// DropSlot drops the replication slot named $1 on the primary, if it
	// exists and no standby is using it any more.
	DropSlot() string
	// Streaming counts, on the primary, the standbys named in $1 (a text
	// array) that are streaming from it.
	Streaming() string
}

// Promoter is a Replicator whose standbys can take the place of a dead
// primary (the fail-primary fault): one is promoted, the others are
// pointed at it. The plan asks for it before it accepts a fail-over.
type Promoter interface {
	// Received is a query, on a standby, of how far the WAL it has
	// received reaches, as a number: the standby that received the most
	// is promoted, so that the others can follow it.
	Received() string
	// Promote is a query that asks a standby to end its recovery and
	// become a primary, without waiting; Promoted a query that says
	// "true" once it accepts writes.
	Promote() string
	Promoted() string
	// CreateSlot creates the replication slot named $1 on a primary,
	// its WAL kept from now on.
	CreateSlot() string
	// Follow is the statements that point a running standby at the
	// primary of s (its socket, port, superuser and password) through
	// the slot s.Slot, and make it take them at once.
	Follow(s server.Standby) []string
}

// Registry is the set of known engines, by name. An explicit value, not a
// package global: callers build it with Builtin.
type Registry map[string]Engine

// Builtin returns the engines tenantbench has.
func Builtin() Registry {
	r := Registry{}
	r.Add(postgres.Engine{})
	r.Add(mariadb.Engine{})
	return r
}

// Add registers e, refusing a duplicate name.
func (r Registry) Add(e Engine) {
	if _, dup := r[e.Name()]; dup {
		panic("engine registered twice: " + e.Name())
	}
	r[e.Name()] = e
}

// Names are the registered engines' names, sorted.
func (r Registry) Names() []string {
	return slices.Sorted(maps.Keys(r))
}

// Get is the engine named name, or an error listing those there are.
func (r Registry) Get(name string) (Engine, error) {
	if e, ok := r[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("engine %q is not known (known: %s)", name, strings.Join(r.Names(), ", "))
}

// ErrorClass asks every engine for the class of err: each knows its own
// driver's error types, so at most one answers. "" when none does.
func (r Registry) ErrorClass(err error) string {
	for _, e := range r {
		if c := e.ErrorClass(err); c != "" {
			return c
		}
	}
	return ""
}

// Borrowable is an engine whose servers tenantbench can use without
// having started them (provider external): it reads the user's admin
// connection string, says what the admin role lacks, and drops exactly
// the objects a run created.
type Borrowable interface {
	// ParseAdmin reads an admin connection string as the engine's client
	// would, a password file included (PostgreSQL: PGPASSFILE or
	// ~/.pgpass when the string has no password).
	ParseAdmin(dsn string) (server.AdminLogin, error)
	// MissingPrivileges says, on an admin session, which of the
	// privileges tenantbench needs to create roles and databases its
	// role lacks (none for a superuser).
	MissingPrivileges(ctx context.Context, c server.Conn) ([]string, error)
	// MaxConnections is the server's connection limit (PostgreSQL's
	// max_connections), which tenantbench cannot set on it.
	MaxConnections(ctx context.Context, c server.Conn) (int, error)
	// DropDatabase, DropSchema (run in its database) and DropRole drop
	// one object if it is still there, ending the sessions in its way.
	DropDatabase(db string) []string
	DropSchema(schema string) []string
	DropRole(role string) []string
}
