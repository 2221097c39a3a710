package mariadb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// Conn is one session on a MariaDB server: one go-sql-driver/mysql
// connection, whose network socket tenantbench keeps (the driver's
// watchdog closes it under a stuck client). It is both the admin code's
// session (server.Conn) and a workload's client connection
// (server.Client, server.Socket). The admin code and the loads go
// through database/sql (SQL), whose only connection it is; a workload's
// hot path goes to the driver's connection itself (Prepare, Text:
// stmt.go), which database/sql's per-call costs would double.
type Conn struct {
	db     *sql.DB
	c      *sql.Conn
	dc     driver.Conn // the driver's connection, c's too
	sock   net.Conn
	closed atomic.Bool
	vers   string
}

var (
	_ dbserver.Conn   = (*Conn)(nil)
	_ dbserver.Socket = (*Conn)(nil)
)

// dialKey carries, in the context of a connect, where the dialer puts the
// socket it made and how it wraps it.
type dialKey struct{}

type dialSlot struct {
	sock net.Conn
	wrap func(net.Conn) net.Conn
}

// The driver dials through these networks, named for tenantbench, so
// that each connection's socket can be had (go-sql-driver/mysql has no
// per-connection dialer).
const (
	netTCP  = "tenantbench-tcp"
	netUnix = "tenantbench-unix"
)

func init() {
	dial := func(network string) mysql.DialContextFunc {
		return func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// On Go's netpoller, where a client on a goroutine of its
			// own (tpcc's, tpch's) waits for its reply without holding
			// a thread: dialed out of it, each wait slept in poll(2)
			// and handed the P over, and the statements terminal's CPU
			// per New-Order rose from 0.41 to 0.74 of go-tpc's
			// (BENCHMARKS.md, "(b) on MariaDB, and its sockets back on
			// the netpoller"). A client on a Loop of its own is taken
			// out at the phase's start (sendOnRead.Unpoll).
			c = sendingOnRead(c)
			if slot, ok := ctx.Value(dialKey{}).(*dialSlot); ok {
				if slot.wrap != nil {
					c = slot.wrap(c)
				}
				slot.sock = c
			}
			return c, nil
		}
	}
	mysql.RegisterDialContext(netTCP, dial("tcp"))
	mysql.RegisterDialContext(netUnix, dial("unix"))
}

// connectTimeout bounds a connect, as pgx's ConnectTimeout does for the
// PostgreSQL engine's callers.
const connectTimeout = 10 * time.Second

// open connects with dsn (DSN's), its socket through wrap.
func open(ctx context.Context, dsn string, wrap func(net.Conn) net.Conn) (*Conn, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, errors.New("bad connection settings") // never echo the DSN: it holds the password
	}
	switch cfg.Net {
	case "tcp":
		cfg.Net = netTCP
	case "unix":
		cfg.Net = netUnix
	}
	cfg.Timeout = connectTimeout
	// Statements hold at most one statement: a tenant's text cannot
	// append another.
	cfg.MultiStatements = false
	// The driver logs a failed read (a session ended by a deadline or
	// its closed socket: a workload's end) before returning its error,
	// which the caller has.
	cfg.Logger = quiet{}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, errors.New("bad connection settings")
	}
	slot := &dialSlot{wrap: wrap}
	dc, err := connector.Connect(context.WithValue(ctx, dialKey{}, slot))
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(&oneConn{dc: dc, d: connector.Driver()})
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	c, err := db.Conn(ctx)
	if err != nil {
		dc.Close()
		db.Close()
		return nil, err
	}
	conn := &Conn{db: db, c: c, dc: dc, sock: slot.sock}
	if err := c.QueryRowContext(ctx, "SELECT VERSION()").Scan(&conn.vers); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// quiet is the driver's logger: nothing.
type quiet struct{}

func (quiet) Print(...any) {}

// oneConn hands database/sql the one driver connection a Conn has made,
// once: a Conn's session is never reconnected behind its back.
type oneConn struct {
	mu sync.Mutex
	dc driver.Conn
	d  driver.Driver
}

var errSpent = errors.New("mariadb: the session's connection was closed")

func (o *oneConn) Connect(context.Context) (driver.Conn, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	dc := o.dc
	if dc == nil {
		return nil, errSpent
	}
	o.dc = nil
	return dc, nil
}

func (o *oneConn) Driver() driver.Driver { return o.d }

// Connect opens an admin session.
func (Engine) Connect(ctx context.Context, dsn string) (dbserver.Conn, error) {
	c, err := open(ctx, dsn, nil)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ClientConn opens a tenant's connection: a *Conn.
func (Engine) ClientConn(ctx context.Context, dsn string, wrap func(net.Conn) net.Conn) (dbserver.Client, error) {
	c, err := open(ctx, dsn, wrap)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// SQL is the database/sql connection, for a workload's MariaDB form.
func (c *Conn) SQL() *sql.Conn { return c.c }

func (c *Conn) Exec(ctx context.Context, query string, args ...any) error {
	_, err := c.c.ExecContext(ctx, query, args...)
	return c.note(err)
}

// Script runs each statement alone, in order, as a workload's setup and
// post-ingest do; the rows of one that returns them (ANALYZE TABLE) are
// read to the end. An error names the statement by its first line.
func (c *Conn) Script(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		rows, err := c.c.QueryContext(ctx, s)
		if err == nil {
			for rows.Next() {
			}
			err = errors.Join(rows.Err(), rows.Close())
		}
		if err != nil {
			first, _, _ := strings.Cut(s, "\n")
			return fmt.Errorf("%s: %w", first, c.note(err))
		}
	}
	return nil
}

func (c *Conn) QueryStrings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := c.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, c.note(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s.String)
	}
	return out, c.note(rows.Err())
}

// ServerVersion is VERSION()'s number, "10.11.19" of
// "10.11.19-MariaDB-0+deb12u1".
func (c *Conn) ServerVersion() string {
	v, _, _ := strings.Cut(c.vers, "-")
	return v
}

func (c *Conn) Client() dbserver.Client { return c }

// Socket is the connection's network socket.
func (c *Conn) Socket() net.Conn { return c.sock }

// Close ends the session; it may be called again.
func (c *Conn) Close(context.Context) error {
	if c.closed.Swap(true) {
		return nil
	}
	err := c.c.Close()
	return errors.Join(err, c.db.Close())
}

// IsClosed says whether the session was closed, here or by the server (the
// driver marks its connection invalid when its socket fails).
func (c *Conn) IsClosed() bool {
	if c.closed.Load() {
		return true
	}
	valid := true
	err := c.c.Raw(func(dc any) error {
		if v, ok := dc.(driver.Validator); ok {
			valid = v.IsValid()
		}
		return nil
	})
	return err != nil || !valid
}

// note marks the session closed when err says its connection is gone.
func (c *Conn) note(err error) error {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) {
		c.closed.Store(true)
	}
	return err
}

// Of is the *Conn under a workload's connection, for a workload's MariaDB
// form; ok is false for another engine's.
func Of(c dbserver.Client) (conn *Conn, ok bool) {
	conn, ok = c.(*Conn)
	return conn, ok
}

// String names the connection without its credentials.
func (c *Conn) String() string { return fmt.Sprintf("mariadb connection to %s", c.vers) }
