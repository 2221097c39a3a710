// Package provider defines where DBMS instances come from. The local
// provider (subpackage local) starts servers as processes on this machine.
package provider

import (
	"context"
	"fmt"
	"net/url"
)

// InstanceSpec is what a run asks of one server.
type InstanceSpec struct {
	Name     string            // unique within the run: "shared", "t01", ...
	WorkDir  string            // the run's work directory; the instance lives below it
	Version  string            // server major version ("15"); "" = newest available
	Settings map[string]string // written to postgresql.conf, after tenantbench's own
	// MaxConnections is the least max_connections the run needs; used when
	// Settings does not set max_connections.
	MaxConnections int
	CPUs           float64 // CFS quota in CPUs; 0 = unlimited
	MemoryBytes    int64   // memory limit; 0 = unlimited
}

// Instance is one running server.
type Instance struct {
	Name      string
	Host      string // "127.0.0.1"
	Port      int
	SocketDir string
	// User and Password are the superuser's; the password never goes to logs.
	User, Password string
	DataDir        string
	LogFile        string
	Pid            int    // the postmaster
	Version        string // server_version as reported, e.g. "15.18"
	// Cgroup is the instance's cgroup path below the hierarchy root
	// ("/tenantbench/<run>/<name>"), "" when none could be made.
	Cgroup         string
	CgroupMode     string // "v1", "v2" or "none"
	LimitsEnforced bool   // CPU and memory limits are in force
	// Exited is closed when the server process ends, for whatever reason.
	Exited <-chan struct{}
}

// Record is what a kept instance leaves behind so that `tenantbench down`
// can stop it later from another process.
type Record struct {
	Name       string `json:"name"`
	Pid        int    `json:"pid"`
	DataDir    string `json:"data_dir"`
	Port       int    `json:"port"`
	SocketDir  string `json:"socket_dir"`
	Cgroup     string `json:"cgroup"`
	CgroupMode string `json:"cgroup_mode"`
	WorkDir    string `json:"work_dir"`
}

// Provider starts and stops instances.
type Provider interface {
	Start(ctx context.Context, s InstanceSpec) (*Instance, error)
	// Stop shuts the server down (fast, then immediate, then SIGKILL of its
	// process group) and removes its cgroup. It keeps the data directory.
	Stop(ctx context.Context, i *Instance) error
}

// DSN is a connection string for user on database over the given transport
// ("tcp" or "unix"). The password is in the string: never log it.
func (i *Instance) DSN(transport, database, user, password string) string {
	host := i.Host
	if transport == "unix" {
		host = i.SocketDir
	}
	q := url.Values{}
	q.Set("host", host)
	q.Set("port", fmt.Sprint(i.Port))
	q.Set("sslmode", "disable")
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password), Path: "/" + database, RawQuery: q.Encode()}
	return u.String()
}

// AdminDSN connects as the superuser over the unix socket.
func (i *Instance) AdminDSN(database string) string {
	return i.DSN("unix", database, i.User, i.Password)
}
