// Package server holds the types an engine and the code that runs its
// servers share: what a server's configuration holds (Config), one
// installation of its programs (Programs), and a superuser session that
// runs SQL whatever the engine's client library (Conn). It imports
// nothing of tenantbench, so that an engine package (engine/postgres,
// engine/mariadb) and the engine registry above it can both use it.
package server

import (
	"context"
	"net"
)

// Config is what a provider asks of a server's configuration files:
// where it keeps its data, where it listens and what the spec sets.
type Config struct {
	DataDir   string // made by the engine's initialisation
	SocketDir string // the server's unix socket lives here
	Port      int    // the TCP port
	// Listen is the address the server listens on, "" for 127.0.0.1;
	// Clients is the subnet its TCP clients come from ("198.51.100.0/30"),
	// "" for loopback only. A server in a network namespace of its own
	// (sut.network) listens on the namespace's address and lets in the
	// host's end of the link.
	Listen  string
	Clients string
	// MaxConnections is used unless Settings sets the engine's own
	// connection limit; 0 keeps the engine's default.
	MaxConnections int
	// Name is the instance's name, shown in process titles where the
	// engine can (PostgreSQL's cluster_name).
	Name string
	// Settings are the spec's, checked by the engine's CheckSetting;
	// they win over the engine's own defaults.
	Settings map[string]string
}

// Standby is what a base backup needs to copy a running primary into a
// hot standby (engine.Replicator): the primary's socket and port, its
// superuser and password, the standby's data directory and the
// replication slot it streams through.
type Standby struct {
	SocketDir      string
	Port           int
	User, Password string
	DataDir        string
	Slot           string
}

// Programs is one installation of an engine's server programs.
type Programs interface {
	// Version is the programs' full version, e.g. "15.18", "10.11.19".
	Version() string
	// Dir is where the programs are.
	Dir() string
}

// InitFile is a file an initialisation needs (a password, SQL holding a
// password's hash): written by the provider, readable by the server's
// user only, removed once the initialisation ends. Never on a command
// line, never in a log.
type InitFile struct {
	Path string
	Data []byte
}

// Conn is a session on a server as the admin code holds it: tenancy's
// statements and the readiness check, whatever the engine's client
// library. The SQL is the engine's (its Admin methods, its queries), with
// the engine's own placeholders for args.
type Conn interface {
	// Exec runs one statement (without args: may be several, as one
	// text, where the engine allows).
	Exec(ctx context.Context, sql string, args ...any) error
	// QueryStrings runs a query and returns its first column's values
	// as text (NULL as "").
	QueryStrings(ctx context.Context, sql string, args ...any) ([]string, error)
	// ServerVersion is the server's version as it reports it, e.g.
	// "15.18", "10.11.19-MariaDB".
	ServerVersion() string
	// Client is the engine's own client connection under this session,
	// for code that hands an admin session to a workload (the shared
	// tables' owner).
	Client() Client
	Close(ctx context.Context) error
}

// Client is a connection as a workload holds it: the engine's own client
// connection (PostgreSQL: a *pgx.Conn), which the workload's form for that
// engine asserts. Every engine's has these two methods.
type Client interface {
	Close(ctx context.Context) error
	// IsClosed says whether the connection is closed (by either side).
	IsClosed() bool
}

// Socket is a Client whose network socket can be had, which the driver's
// watchdog closes under a stuck client from another goroutine.
type Socket interface {
	Client
	Socket() net.Conn
}

// Find says where an engine looks for its server programs beyond the
// usual places, and whether it may download them.
type Find struct {
	// CacheDir holds downloaded builds; "" is the engine's default.
	CacheDir string
	// NoFetch makes a search that finds nothing fail instead of
	// downloading.
	NoFetch bool
	// Logf reports slow steps (a download); nil is silent.
	Logf func(format string, args ...any)
}

// Activity is one process or session of a server as a statistics session
// reads it. Its byte slices are valid during the callback only.
type Activity struct {
	Pid int
	// Type is the process's kind in PostgreSQL's backend_type names,
	// which the monitor classes by: "client backend" a client's session,
	// "parallel worker" one's helper, any other name a background
	// process ("checkpointer"), empty not known yet. Another engine maps
	// its sessions to these.
	Type []byte
	// HasRole is false for a session not yet logged in as a role.
	HasRole bool
	// Named: User and Database are the session's names (nil for none).
	// False when they could not be read this time: the session is named
	// at a later read.
	Named          bool
	User, Database []byte
	// State and the wait event, nil when none.
	State, WaitType, WaitName []byte
}

// Stats is a statistics session on a server, which the monitor samples
// it with, whatever the engine's client library.
type Stats interface {
	// Pid is the server process of this session, which Activity leaves
	// out.
	Pid() int
	// PresentViews are those of views (the engine's cumulative
	// statistics views) the server has, in that order.
	PresentViews(ctx context.Context, views []string) ([]string, error)
	// ReadView reads one cumulative statistics view: each row keyed by
	// its text columns joined with "/" ("all" for a row without one),
	// its numeric columns by name; resets holds each row's stats_reset
	// ("" when none).
	ReadView(ctx context.Context, view string) (rows map[string]map[string]float64, resets map[string]string, err error)
	// Activity calls fn for every process of the server but this
	// session's own.
	Activity(ctx context.Context, fn func(a *Activity)) error
	// SharedMemory is the shared memory the server allocated but its
	// buffer cache, in bytes; ok is false when the server does not say.
	SharedMemory(ctx context.Context) (bytes int64, ok bool, err error)
	Ping(ctx context.Context) error
	IsClosed() bool
	Close(ctx context.Context) error
}

// Threaded is a Stats session on a server that runs its sessions as
// threads of one process (MariaDB), not as processes (PostgreSQL):
// Activity's Pid is then the OS id of the session's thread, which may run
// another session later (a thread cache). The monitor then reads the
// CPU of each thread (/proc/<pid>/task/<tid>/stat) and names the threads
// at every round.
type Threaded interface {
	Threaded() bool
}

// Replication is a Stats session that reads, on a primary, how far each
// standby streaming from it lags (PostgreSQL's pg_stat_replication): the
// monitor's replication.csv.
type Replication interface {
	Replication(ctx context.Context) ([]StandbyLag, error)
}

// StandbyLag is one standby as its primary sees it: its name (its
// application_name, the instance's name), its state, the time its last
// WAL took to be written, flushed and replayed there (-1 when the
// primary does not know: nothing sent recently), and the WAL bytes sent
// but not yet replayed.
type StandbyLag struct {
	Name                    string
	State                   string
	WriteS, FlushS, ReplayS float64
	ReplayBehindBytes       int64
}

// AdminLogin is where and as whom an admin connection string connects
// (engine.Borrowable reads the user's), and how it secures the
// connection: every connection tenantbench derives for that server (its
// tenants', the monitor's) keeps the same TLS.
type AdminLogin struct {
	Host     string
	Port     int
	User     string
	Password string
	TLS      TLS
}

// TLS is how a client secures its connection to a server, in libpq's
// words: sslmode, and the files sslrootcert (the CAs the server's
// certificate must chain to), sslcert and sslkey (the client's own). The
// zero value connects without TLS, as to a server tenantbench started
// (over loopback or its socket); a server the user runs keeps what the
// user's admin connection string (or PGSSLMODE and the like) says, and
// libpq's default, prefer, when it says nothing.
type TLS struct {
	Mode, RootCert, Cert, Key string
}

// NameCache is a Stats session that names sessions' roles and databases
// from a cache of their ids, read again only when an id it lacks appears.
// A role or database renamed in place keeps its id (a copied server's
// tenant is renamed so): ForgetNames makes the next Activity read every
// name again.
type NameCache interface {
	ForgetNames()
}

// BlockStats is a Stats session that reads the blocks the DBMS counts
// per database and per schema: the IO it attributes to each, where a
// server's tenants share its processes and cgroup. Counts are cumulative
// (since the statistics were reset); read is the blocks sought outside
// the buffer cache (from the operating system: its page cache or the
// device), hit those found in it. Each calls fn once a row, name
// referencing a buffer reused after fn returns.
type BlockStats interface {
	// DatabaseBlocks reads every database's blocks.
	DatabaseBlocks(ctx context.Context, fn func(name []byte, read, hit int64)) error
	// SchemaBlocks reads, in the session's own database, each schema's
	// blocks: its tables', their indexes' and their TOAST's.
	SchemaBlocks(ctx context.Context, fn func(name []byte, read, hit int64)) error
}

// Container is how an engine's official container image runs a server
// (provider kubernetes): the image, its command line, its configuration
// files with the run's settings, its environment, where its data volume is mounted, the user
// it runs as and the port it listens on.
type Container struct {
	Image string   // "postgres:17"
	Args  []string // the container's command line, settings included
	// Env are the image's variables beside the password; PasswordEnv is
	// the one the image reads the superuser's password from.
	Env         map[string]string
	PasswordEnv string
	User        string // the superuser the image creates
	UID         int64  // the user and group the server runs as
	Port        int
	DataMount   string // where the data volume is mounted
	// Files are the server's configuration files, by name, holding the
	// run's settings; the provider mounts them read-only at FilesMount
	// (a ConfigMap), where Args point the server.
	Files      map[string]string
	FilesMount string
}
