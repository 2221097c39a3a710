package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/rawsock"
)

// What the local provider needs of PostgreSQL to run its servers
// (engine.Server): the programs, initdb, the configuration files, the
// command line, and how to recognise a postmaster.

// programs is one installation as the engine seam sees it.
type programs struct{ b Binaries }

func (p programs) Version() string { return p.b.Version }
func (p programs) Dir() string     { return p.b.Dir }

// binariesOf is the installation behind p, which FindPrograms made.
func binariesOf(p dbserver.Programs) Binaries {
	if pp, ok := p.(programs); ok {
		return pp.b
	}
	return Binaries{Dir: p.Dir(), Version: p.Version()}
}

// FindPrograms is Finder.Find with find's cache and fetch rule.
func (Engine) FindPrograms(ctx context.Context, version string, find dbserver.Find) (dbserver.Programs, error) {
	b, err := Finder{CacheDir: find.CacheDir, NoFetch: find.NoFetch, Logf: find.Logf}.Find(ctx, version)
	if err != nil {
		return nil, err
	}
	return programs{b}, nil
}

// InitCommand runs initdb: UTF8, locale C, SCRAM authentication, the
// superuser's password read from a file (initdb --pwfile).
func (Engine) InitCommand(p dbserver.Programs, dir, dataDir, user, password string) ([]string, []dbserver.InitFile, error) {
	pwfile := filepath.Join(dir, "pwfile")
	return []string{binariesOf(p).Initdb(),
			"-D", dataDir, "-N", "-E", "UTF8", "--locale=C",
			"-U", user, "--auth=scram-sha-256", "--pwfile=" + pwfile},
		[]dbserver.InitFile{{Path: pwfile, Data: []byte(password + "\n")}}, nil
}

// WriteConfig writes tenantbench's block of postgresql.conf and its
// pg_hba.conf, and marks base/ so that ext4 spreads the databases
// (spread.go): each start's data directory, initdb's or a copy's.
func (Engine) WriteConfig(_ dbserver.Programs, c dbserver.Config) error {
	if err := WriteHBA(c.DataDir, c.Clients); err != nil {
		return err
	}
	spreadDatabases(c.DataDir)
	return WriteConfig(c.DataDir, Config{Port: c.Port, SocketDir: c.SocketDir, ListenAddresses: c.Listen, MaxConnections: c.MaxConnections,
		ClusterName: c.Name, Settings: c.Settings})
}

// StartCommand is the postmaster on the data directory: everything else
// is in postgresql.conf.
func (Engine) StartCommand(p dbserver.Programs, c dbserver.Config) []string {
	return []string{binariesOf(p).Postgres(), "-D", c.DataDir}
}

func (Engine) CheckSetting(name, value string) error { return CheckSetting(name, value) }

func (Engine) LogName() string { return "postgres.log" }

// PortTaken reads the postmaster's message; lc_messages is C, so it is
// in English.
func (Engine) PortTaken(logTail string) bool {
	return strings.Contains(logTail, "Address already in use")
}

// StopSignals: SIGINT is PostgreSQL's fast shutdown (abort the
// transactions, checkpoint), SIGQUIT its immediate one (no checkpoint,
// recovery at the next start).
func (Engine) StopSignals() (clean, fast syscall.Signal) { return syscall.SIGINT, syscall.SIGQUIT }

// IsServer says whether cmdline is "postgres -D <dataDir>".
func (Engine) IsServer(args []string, dataDir string) bool {
	if len(args) < 3 || filepath.Base(args[0]) != "postgres" {
		return false
	}
	for i := 1; i+1 < len(args); i++ {
		if args[i] == "-D" && filepath.Clean(args[i+1]) == filepath.Clean(dataDir) {
			return true
		}
	}
	return false
}

func (Engine) PidFile(dataDir string) string { return filepath.Join(dataDir, "postmaster.pid") }

// SocketFiles are the socket and its lock file.
func (Engine) SocketFiles(dir string, port int) []string {
	base := filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", port))
	return []string{base, base + ".lock"}
}

// Connect opens a pgx session, the admin code's dbserver.Conn.
func (Engine) Connect(ctx context.Context, dsn string) (dbserver.Conn, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return conn{c}, nil
}

// conn is a pgx connection as a dbserver.Conn.
type conn struct{ c *pgx.Conn }

// Exec without args goes by the simple protocol (pgx), so sql may hold
// several statements.
func (c conn) Exec(ctx context.Context, sql string, args ...any) error {
	_, err := c.c.Exec(ctx, sql, args...)
	return err
}

// QueryStrings reads the first column as text, whatever its type.
func (c conn) QueryStrings(ctx context.Context, sql string, args ...any) ([]string, error) {
	rows, err := c.c.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		v, err := r.Values()
		if err != nil || len(v) == 0 || v[0] == nil {
			return "", err
		}
		return fmt.Sprint(v[0]), nil
	})
}

// ServerVersion is server_version's first word ("15.18" of "15.18 (Debian
// 15.18-0+deb12u1)").
func (c conn) ServerVersion() string {
	v := c.c.PgConn().ParameterStatus("server_version")
	if f := strings.Fields(v); len(f) > 0 {
		return f[0]
	}
	return v
}

func (c conn) Close(ctx context.Context) error { return c.c.Close(ctx) }

// Client is the session's *pgx.Conn.
func (c conn) Client() dbserver.Client { return c.c }

// ClientConn opens a tenant's connection: a *pgx.Conn, whose socket goes
// through wrap when it is not nil (a loader's slot released when the
// socket closes).
func (Engine) ClientConn(ctx context.Context, dsn string, wrap func(net.Conn) net.Conn) (dbserver.Client, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("bad connection settings") // never echo the DSN: it holds the password
	}
	// A client's socket carries its raw Socket (rawsock.Wrap), which the
	// wire protocol's hot path reads, and the driver may put on a Loop; a
	// loader's goes through wrap instead.
	if wrap == nil {
		wrap = rawsock.Wrap
	}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrap(c), nil
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// PGX is the pgx connection under a session Connect made, for the code
// that speaks PostgreSQL's protocol itself; nil for another engine's.
func PGX(c dbserver.Conn) *pgx.Conn {
	if pc, ok := c.(conn); ok {
		return pc.c
	}
	return nil
}
