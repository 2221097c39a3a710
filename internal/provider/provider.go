// Package provider defines where DBMS instances come from. The local
// provider (subpackage local) starts servers as processes on this machine.
package provider

import (
	"context"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/netns"
)

// InstanceSpec is what a run asks of one server.
type InstanceSpec struct {
	Name string // unique within the run: "shared", "t01", ...
	// Engine is the server's DBMS; nil is PostgreSQL.
	Engine   engine.Engine
	WorkDir  string            // the run's work directory; the instance lives below it
	Version  string            // server major version ("15"); "" = newest available
	Settings map[string]string // written to the server's configuration, after tenantbench's own
	// MaxConnections is the least max_connections the run needs; used when
	// Settings does not set max_connections.
	MaxConnections int
	CPUs           float64 // CFS quota in CPUs; 0 = unlimited
	MemoryBytes    int64   // memory limit; 0 = unlimited
	// Cores are the CPUs the server may run on (a cpuset), nil for any:
	// the plan places them by sut.resources.cpu_policy.
	Cores []int
	// Storage is where the server's data directory lives; the zero
	// value is the work directory's file system, shared.
	Storage StorageSpec
	// Detached servers may outlive tenantbench (--keep); any other dies
	// with it where the platform allows (the local provider: a parent
	// death signal).
	Detached bool
	// Ledger, when not nil, is told of the server as soon as anything of
	// it exists (directory, cgroup, process) and as each part is added,
	// and when it has stopped: so that a tenantbench killed meanwhile
	// leaves a record of what to clean up.
	Ledger Ledger
	// KeepLog, when not nil, is given the log of a server that failed to
	// start, before the provider removes it with the rest of the server,
	// and returns a phrase for the error that names the copy it kept (or
	// says why there is none).
	KeepLog func(name, logFile string) string
	// Server is the user's server to place the instance on, for a
	// provider that starts none (Factory.Servers); nil for the others.
	Server *Server
	// RunID names the run uniquely on a server shared with others: a
	// provider that places tenants on the user's servers (Borrowed)
	// begins every name it creates with it.
	RunID string
	// Network, when not nil, is the network namespace the server (and
	// its pooler) runs in, behind the run's emulated link (sut.network,
	// made by the provider's Networker): it listens on the namespace's
	// address, which is the instance's Host.
	Network *netns.Net
	// Cluster is the Kubernetes cluster to run the instance in, for a
	// provider that runs servers as pods (Factory.Cluster); nil for the
	// others.
	Cluster *Cluster
}

// StorageSpec is sut.storage for one server: its kind (spec.StorageDisk,
// spec.StorageTmpfs), its volume (spec.VolumeShared,
// spec.VolumePerInstance) and the size of a file system the provider
// makes for it, 0 for the provider's default.
type StorageSpec struct {
	Kind      string `json:"kind,omitempty"`
	Volume    string `json:"volume,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
}

// Cluster is sut.kubernetes as the plan resolved it: the environment
// variable holding the kubeconfig's path (the file's contents never go
// to the spec, plan or ledger), the namespace, and the server's image.
type Cluster struct {
	KubeconfigEnv string `json:"kubeconfig_env"`
	// Context is the kubeconfig's context, "" for its current one.
	Context   string `json:"context,omitempty"`
	Namespace string `json:"namespace"`
	Image     string `json:"image"`
	// Access is how this process reaches the servers (a value of
	// sut.kubernetes.access: spec.AccessPodIP, ...).
	Access string `json:"access,omitempty"`
	// Spread puts the run's servers on distinct nodes.
	Spread bool `json:"spread,omitempty"`
	// StorageClass, when set, gives each server a PersistentVolumeClaim
	// of that class and of StorageBytes instead of an emptyDir.
	StorageClass string `json:"storage_class,omitempty"`
	StorageBytes int64  `json:"storage_bytes,omitempty"`
	// NodeSelector are the labels a node must carry to run the pods.
	NodeSelector map[string]string `json:"node_selector,omitempty"`
}

// Server is a server the user runs, named in sut.servers: its name and
// the environment variable holding its admin connection string (the
// string itself never goes to the spec, plan or ledger).
type Server struct {
	Name   string `json:"name"`
	DSNEnv string `json:"dsn_env"`
}

// Object is one object created on a server tenantbench did not start: a
// role, a database, or a schema in a database. The ledger lists them so
// that exactly they are dropped.
type Object struct {
	Kind     string `json:"kind"` // ObjectRole, ObjectDatabase, ObjectSchema
	Name     string `json:"name"`
	Database string `json:"database,omitempty"` // a schema's database
}

// The kinds of Object.
const (
	ObjectRole     = "role"
	ObjectDatabase = "database"
	ObjectSchema   = "schema"
)

// Ledger keeps the records of the servers that may be alive: a provider
// calls Live with the record of everything it has made of a server so far
// (again each time it adds to it; the data directory identifies it) and
// Gone once the server has stopped.
type Ledger interface {
	Live(r Record)
	Gone(r Record)
}

// Instance is one running server.
type Instance struct {
	Name string
	// Engine is the server's DBMS: it builds the connection strings and
	// the admin SQL.
	Engine engine.Engine
	// Host, Port and SocketDir are the server's endpoint: clients and the
	// admin reach it there (see Client and Admin).
	Host      string // "127.0.0.1"
	Port      int
	SocketDir string // "" when the server has no unix socket
	// User and Password are the superuser's; the password never goes to logs.
	User, Password string
	// TLS is how every connection to the server is secured, the admin's,
	// the tenants' and the monitor's alike: the zero value (no TLS) for a
	// server tenantbench started, the user's admin connection string's
	// for a server the user runs (provider external).
	TLS            server.TLS
	LogFile        string // the server's log, "" when the provider keeps none
	Version        string // server_version as reported, e.g. "15.18"
	LimitsEnforced bool   // CPU and memory limits are in force
	// Exited is closed when the server process ends, for whatever reason.
	Exited <-chan struct{}
	// Pool is the connection pooler in front of the server (Pooler
	// starts it), nil for none: the tenants' clients run the workload
	// through it (WorkloadDSN).
	Pool *Pool
	// Control is what the provider can do with the server beyond
	// connecting to it: a value implementing some of the capabilities
	// (ResourceSampler, Storage, Limits, Killer, Freezer). Ask with As.
	Control any
}

// Record is what a kept instance leaves behind so that `tenantbench down`
// can stop it later from another process.
type Record struct {
	Name string `json:"name"`
	// Engine is the server's engine by name; "" is PostgreSQL (records
	// written before there was a second engine).
	Engine string `json:"engine,omitempty"`
	Pid    int    `json:"pid"`
	// PidStart is the process's start time (clock ticks since boot, field
	// 22 of /proc/<pid>/stat), which tells it from a later process given
	// the same pid; 0 when not known.
	PidStart   uint64 `json:"pid_start,omitempty"`
	DataDir    string `json:"data_dir"`
	Port       int    `json:"port"`
	SocketDir  string `json:"socket_dir"`
	Cgroup     string `json:"cgroup"`
	CgroupMode string `json:"cgroup_mode"`
	WorkDir    string `json:"work_dir"`
	// Server and Objects are a borrowed server's (Borrowed): the server
	// as the spec named it, and what the run created there, each listed
	// before it was created.
	Server  *Server  `json:"server,omitempty"`
	Objects []Object `json:"objects,omitempty"`
	// Pooler is the pooler in front of the server, nil for none.
	Pooler *PoolerRecord `json:"pooler,omitempty"`
	// Mounts are the file systems made for the server's data
	// (sut.storage), each listed before it is mounted, in the order
	// made; StopRecord unmounts them in reverse.
	Mounts []Mount `json:"mounts,omitempty"`
	// Cluster and Labels are a server run in a Kubernetes cluster: the
	// cluster, and the labels every object made for it carries, by which
	// down deletes them.
	Cluster *Cluster          `json:"kubernetes,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// Mount is a file system a provider mounted for a server's data.
type Mount struct {
	// Dir is the mount point.
	Dir string `json:"dir"`
	// Kind is MountTmpfs, MountExt4 (a loop-mounted image) or MountBind
	// (a directory of the run's shared volume).
	Kind string `json:"kind"`
	// Source is an image file (ext4) or a directory (bind), "" for tmpfs.
	Source string `json:"source,omitempty"`
	// Loop is the loop device an image is attached to, "" until attached.
	Loop string `json:"loop,omitempty"`
	// Shared says the mount is the run's volume, which every server's
	// record lists: the last server on it unmounts it.
	Shared bool `json:"shared,omitempty"`
}

// The kinds of Mount.
const (
	MountTmpfs = "tmpfs"
	MountExt4  = "ext4"
	MountBind  = "bind"
)

// PoolerRecord is a pooler's process and cgroup, for down.
type PoolerRecord struct {
	Pid        int    `json:"pid"`
	PidStart   uint64 `json:"pid_start"`
	Cgroup     string `json:"cgroup"`
	CgroupMode string `json:"cgroup_mode"`
}

// Provider starts and stops instances.
type Provider interface {
	Start(ctx context.Context, s InstanceSpec) (*Instance, error)
	// Stop shuts the server down (fast, then immediate, then SIGKILL of its
	// process group) and removes its cgroup. It keeps the data directory.
	Stop(ctx context.Context, i *Instance) error
}

// Endpoint is where a server is reached: a host and port over TCP, or a
// unix socket directory and the same port.
type Endpoint struct {
	Host      string
	Port      int
	SocketDir string
	// TLS secures connections to it (the zero value: none; a pooler
	// tenantbench starts in front of its own server has none).
	TLS server.TLS
}

// Client is where the tenants' clients reach the server itself (their
// loading, their checks).
func (i *Instance) Client() Endpoint {
	return Endpoint{Host: i.Host, Port: i.Port, SocketDir: i.SocketDir, TLS: i.TLS}
}

// WorkloadDSN is DSN for the workload phase: through the pooler when one
// runs, with unnamed statements when the pooler cannot keep a client's
// named ones (Pool.NamedStatements).
func (i *Instance) WorkloadDSN(transport, database, user, password string) string {
	if i.Pool == nil {
		return i.DSN(transport, database, user, password)
	}
	dsn := i.dsn(i.Pool.Endpoint, transport, database, user, password)
	if p, ok := i.Engine.(engine.Pooled); ok && !i.Pool.NamedStatements {
		dsn = p.Unnamed(dsn)
	}
	return dsn
}

// Admin is where tenantbench's superuser sessions reach the server.
func (i *Instance) Admin() Endpoint {
	return Endpoint{Host: i.Host, Port: i.Port, SocketDir: i.SocketDir, TLS: i.TLS}
}

// dsn connects to e over transport ("tcp" or "unix"; unix needs a
// socket directory, else TCP is used).
func (i *Instance) dsn(e Endpoint, transport, database, user, password string) string {
	host := e.Host
	if transport == "unix" && e.SocketDir != "" {
		host = e.SocketDir
	}
	return i.Engine.DSN(host, e.Port, e.TLS, database, user, password)
}

// DSN is a connection string for user on database at the client endpoint
// over the given transport ("tcp" or "unix"). The password is in the
// string: never log it.
func (i *Instance) DSN(transport, database, user, password string) string {
	return i.dsn(i.Client(), transport, database, user, password)
}

// AdminDSN connects as the superuser at the admin endpoint, over the unix
// socket when there is one.
func (i *Instance) AdminDSN(database string) string {
	return i.dsn(i.Admin(), "unix", database, i.User, i.Password)
}
