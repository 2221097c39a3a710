// Package mariadb is the MariaDB engine: what a spec may set, how to
// connect (go-sql-driver/mysql), the admin SQL of the database and
// instance tenancy models, its server programs (Debian's mariadb-server,
// 10.11 on Debian 12) and the configuration file tenantbench writes.
//
// In MariaDB a schema is a database: a tenant's schema in a shared
// database does not exist, so the engine has no engine.Schemas and the
// schema and shared-table models refuse it at plan; no row-level security
// either (no engine.Sharer).
package mariadb

import (
	"errors"
	"net"
	"strconv"

	"github.com/go-sql-driver/mysql"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// Name is the engine's name in a spec (sut.engine).
const Name = "mariadb"

// Engine is MariaDB as the engine registry sees it. It has no state; the
// zero value is ready.
type Engine struct{}

func (Engine) Name() string { return Name }

// ConnectionReserve: MariaDB keeps one connection beyond max_connections
// for a user with SUPER (CONNECTION ADMIN) already; tenantbench's admin
// sessions (setup, monitor) need 2 more, and 1 is spare.
const ConnectionReserve = 3

// MinMemory is the least memory limit a server starts and runs a
// benchmark with: the default InnoDB buffer pool (128 MiB) and the rest.
const MinMemory int64 = 256 << 20

func (Engine) ConnectionReserve() int { return ConnectionReserve }
func (Engine) MinMemory() int64       { return MinMemory }

// Footprint is a lower bound of what a server costs: one process (MariaDB
// runs its sessions as threads), 80 MiB (below the about 100 MiB a 10.11
// server running tpcb at scale 1 with 4 clients held here: its buffer
// pool is allocated as it fills), and a session thread 1 MiB (its stack
// and buffers).
func (Engine) Footprint() (serverProcesses int, serverBytes, connectionBytes int64) {
	return 1, 80 << 20, 1 << 20
}

// DSN is go-sql-driver/mysql's data source name for user on database at
// host (an address, or the socket directory when it starts with "/") and
// port. The password is in it: never log it. tls's mode is mapped to the
// driver's nearest (prefer: preferred, require: skip-verify, verify-ca and
// verify-full: true, against the system's CAs); its files are not carried,
// so that a verifying mode fails rather than trusting less: MariaDB's
// servers are tenantbench's own (the engine is not Borrowable), whose
// zero TLS connects without.
func (Engine) DSN(host string, port int, tls dbserver.TLS, database, user, password string) string {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.DBName = user, password, database
	switch tls.Mode {
	case "allow", "prefer":
		c.TLSConfig = "preferred"
	case "require":
		c.TLSConfig = "skip-verify"
	case "verify-ca", "verify-full":
		c.TLSConfig = "true"
	}
	if len(host) > 0 && host[0] == '/' {
		c.Net, c.Addr = "unix", SocketPath(host, port)
	} else {
		c.Net, c.Addr = "tcp", net.JoinHostPort(host, strconv.Itoa(port))
	}
	return c.FormatDSN()
}

// ErrorClass is the SQLSTATE class of a server error (its first two
// characters: "40" for a deadlock, as in PostgreSQL), "" when err is none.
func (Engine) ErrorClass(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.SQLState[0] != 0 {
		return string(me.SQLState[:2])
	}
	return ""
}

// ErrorNumber is MariaDB's error number of a server error, 0 when err is
// none.
func ErrorNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}
