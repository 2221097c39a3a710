// Package spec holds the experiment file: its schema, strict decoding,
// defaults, validation and expansion into a plan of runs.
//
// The package is nearly a leaf: of tenantbench it imports only
// internal/load (pure load maths, itself a leaf), to build the patterns and
// schedules it validates, and internal/metrics (pure formulas, a leaf) for
// Zhang et al.'s (2025) default prices, so every other package may use its
// types.
package spec

import (
	"time"

	"gopkg.in/yaml.v3"
)

// Spec is one experiment file as written by the user (after defaults).
type Spec struct {
	Name   string `yaml:"name"`
	Seed   int64  `yaml:"seed"`
	Repeat int    `yaml:"repeat"`
	// Order is how runs follow each other in time (OrderBlocked, ...);
	// "" when not written: RunOrder resolves it from Repeat.
	Order string `yaml:"order,omitempty"`
	// Probe is the speed probe, nil for none (spec/order.go).
	Probe    *Probe   `yaml:"probe,omitempty"`
	SUT      SUT      `yaml:"sut"`
	Tenancy  Tenancy  `yaml:"tenancy"`
	Workload Workload `yaml:"workload"`
	// Progress is how often a line per tenant is printed during workload.
	Progress Duration `yaml:"progress"`
	// Interference is the list of noise and fault events on the workload
	// phase's timeline, kept as written for package interfere to decode
	// (like workload.options for the workloads).
	Interference yaml.Node `yaml:"interference"`
	// Cost holds the unit prices of the resource unit cost (Zhang et al. 2025).
	Cost Cost `yaml:"cost"`
}

// Cost holds the resource unit prices in dollars per hour (Zhang et al. 2025
// section II-F, Table III, the defaults), "calibrated with the actual
// cost" when a spec gives its own. Only the resources a run prices (CPU
// and memory: docs/metrics.md) have a key.
type Cost struct {
	CPUVCoreHour float64 `yaml:"cpu_vcore_hour"`
	MemoryGBHour float64 `yaml:"memory_gb_hour"`
}

// SUT is the system under test: engine, where its instances come from and
// how each is configured.
type SUT struct {
	// Engine is sut.engine: one engine, or a list, a matrix dimension
	// (engines.go).
	Engine   Strings `yaml:"engine"`
	Provider string  `yaml:"provider"`
	// Version selects the server major version ("15"); empty means newest
	// found. Version holds it written flat (one engine), EngineVersions
	// keyed by engine (engines.go); VersionOf gives an engine's.
	Version        string            `yaml:"version"`
	EngineVersions map[string]string `yaml:"-"`
	// Settings go to the server's configuration file; a list value is a
	// matrix dimension. Settings holds them written flat (one engine),
	// EngineSettings keyed by engine (engines.go); SettingsOf gives an
	// engine's.
	Settings       map[string]Values            `yaml:"settings"`
	EngineSettings map[string]map[string]Values `yaml:"-"`
	// Transport is how tenants' clients connect: "tcp" (loopback) or "unix".
	Transport string    `yaml:"transport"`
	Resources Resources `yaml:"resources"`
	// Pooler is a connection pooler in front of each server, through
	// which the tenants' clients run the workload; nil for none.
	Pooler *Pooler `yaml:"pooler,omitempty"`
	// Network puts the servers behind an emulated link; nil: loopback.
	Network *Network `yaml:"network,omitempty"`
	// Placement, when given, is a matrix dimension of the clients'
	// placement, each value with its own transport, pooler and network
	// (placements.go), in place of the three keys above.
	Placement []Placement `yaml:"placement,omitempty"`
	// Servers are the servers the user already runs, for a provider that
	// places tenants on them (external): each named, its admin connection
	// string in an environment variable, never in the spec.
	Servers []Server `yaml:"servers,omitempty"`
	// Storage is where the servers' data directories live (storage.go).
	Storage Storage `yaml:"storage"`
	// Kubernetes is the cluster a provider that runs servers as pods
	// (kubernetes) places them in; nil for none.
	Kubernetes *Kubernetes `yaml:"kubernetes,omitempty"`
	// Replicas is how many hot standbys each server gets (replicas.go);
	// a list value is a matrix dimension. Replication is how a commit
	// waits for them: ReplicationAsync or ReplicationSync.
	Replicas    Ints   `yaml:"replicas"`
	Replication string `yaml:"replication,omitempty"`
}

// Kubernetes is sut.kubernetes: the environment variable holding the
// kubeconfig's path (no credential goes in the spec), the namespace the
// run's objects go to, and the server's image.
type Kubernetes struct {
	KubeconfigEnv string `yaml:"kubeconfig_env"`
	// Context is the kubeconfig's context to use, "" for its current
	// one.
	Context   string `yaml:"context,omitempty"`
	Namespace string `yaml:"namespace"`
	Image     string `yaml:"image,omitempty"`
	// Access is how tenantbench reaches the servers from where it runs:
	// AccessPodIP, AccessNodePort or AccessPortForward ("" is
	// AccessPodIP).
	Access string `yaml:"access,omitempty"`
	// Spread puts the run's servers on distinct nodes.
	Spread bool `yaml:"spread,omitempty"`
	// Storage, when set, gives each server a PersistentVolumeClaim of
	// its class and size instead of an emptyDir.
	Storage *KubeStorage `yaml:"storage,omitempty"`
	// NodeSelector is the pods' nodeSelector: the labels a node must
	// carry to run them.
	NodeSelector map[string]string `yaml:"node_selector,omitempty"`
}

// The values of sut.kubernetes.access: the pod's IP, a NodePort
// Service at its node's address, or a port forwarded through the API
// server to 127.0.0.1.
const (
	AccessPodIP       = "pod-ip"
	AccessNodePort    = "nodeport"
	AccessPortForward = "port-forward"
)

func accesses() choice { return choice{[]string{AccessPodIP, AccessNodePort, AccessPortForward}, nil} }

// KubeStorage is sut.kubernetes.storage: a storage class of the cluster
// and the size each server's claim asks for.
type KubeStorage struct {
	Class string   `yaml:"class"`
	Size  ByteSize `yaml:"size,omitempty"`
}

// KubeStorageSize is a claim's size when the spec sets none.
const KubeStorageSize = ByteSize(10 << 30)

// Server is one of sut.servers: a name for the plan and the results, and
// the environment variable that holds its admin connection string (a
// PostgreSQL URI or key=value string; without a password, the password
// comes from PGPASSFILE or ~/.pgpass, as for psql).
type Server struct {
	Name   string `yaml:"name"`
	DSNEnv string `yaml:"dsn_env"`
}

// Pooler is sut.pooler. Its kind and mode are package pooler's names,
// checked by the plan; pool_size is the server connections of each
// tenant's pool.
type Pooler struct {
	Kind     string `yaml:"kind"`
	Mode     string `yaml:"mode"`
	PoolSize int    `yaml:"pool_size"`
}

// PoolerDefaults are what sut.pooler leaves unwritten: pgbouncer's own
// defaults (pool_mode = session, default_pool_size = 20).
var PoolerDefaults = Pooler{Mode: "session", PoolSize: 20}

// Resources limit each instance (Erdelt and Rabl 2026, section 4.1: CPU and
// RAM per container). Divide splits the totals across the instance model's
// servers.
type Resources struct {
	CPUs   float64  `yaml:"cpus"`
	Memory ByteSize `yaml:"memory"`
	Divide bool     `yaml:"divide"`
	// CPUPolicy places the servers on cores (storage.go); a list value
	// is a matrix dimension.
	CPUPolicy Strings `yaml:"cpu_policy"`
	// Schedule and Autoscale change the servers' limits during the
	// workload phase (elastic.go); nil for limits that stay.
	Schedule  *ResourceSchedule `yaml:"schedule,omitempty"`
	Autoscale *Autoscale        `yaml:"autoscale,omitempty"`
}

// Tenancy says how tenants are placed and how many there are.
type Tenancy struct {
	Model   Strings `yaml:"model"`
	Tenants Ints    `yaml:"tenants"`
	// Isolation is IsolationAudit to run the isolation audit in every
	// run's check phase (package isolation), or "" / IsolationOff.
	Isolation string `yaml:"isolation,omitempty"`
	// Guards are the tenancy guards every run sets on its tenants
	// (package tenancy: GuardNames), none by default. Not a matrix
	// dimension; the plan checks the names.
	Guards []string `yaml:"guards,omitempty"`
	// Classes divide each run's tenants into kinds with their own size,
	// load and SLA (classes.go); nil for tenants all alike.
	Classes []Class `yaml:"classes,omitempty"`
}

// The values of tenancy.isolation.
const (
	IsolationOff   = "off"
	IsolationAudit = "audit"
)

// Workload names the workload and its size and load.
type Workload struct {
	Name     string   `yaml:"name"`
	Scale    Floats   `yaml:"scale"`
	Clients  Ints     `yaml:"clients"`
	Duration Duration `yaml:"duration"`
	Warmup   Duration `yaml:"warmup"`
	// Provision is how tenants get their data: "clone" (loaded once and
	// copied, where the model allows) or "load" (every tenant loads).
	Provision string `yaml:"provision"`
	// Options are the workload's own keys, decoded strictly by the
	// workload: those every engine's runs take. EngineOptions are the
	// sections of workload.options keyed by an engine of sut.engine,
	// merged over them for that engine's runs (engineoptions.go);
	// OptionsOf gives an engine's.
	Options       yaml.Node            `yaml:"options"`
	EngineOptions map[string]yaml.Node `yaml:"-"`
	// Cases are explicit points of the experiment, each replacing some
	// of sut.settings, scale, clients and options (spec/cases.go).
	Cases []Case `yaml:"cases"`
	// Load is the load shape; Schedule or Pattern, when given, how each
	// tenant's target varies over the phase (spec/load.go).
	Load     LoadShape `yaml:"load"`
	Schedule *Schedule `yaml:"schedule"`
	Pattern  *Pattern  `yaml:"pattern"`
	// SLA is what every tenant must get (classes.go); nil for none.
	SLA *SLA `yaml:"sla,omitempty"`
	// Reads is where the workload's read-only transactions go:
	// ReadsPrimary or ReadsReplicas (replicas.go).
	Reads string `yaml:"reads,omitempty"`
}

// Duration is a time.Duration written as "30s", "2m".
type Duration time.Duration

// ByteSize is a size written as "512MiB", "2GB" or a plain number of bytes.
type ByteSize int64

// Strings, Ints, Floats and Values are a scalar or a list of scalars in
// YAML; a list makes the key a dimension of the plan's matrix.
type (
	Strings []string
	Ints    []int
	Floats  []float64
	Values  []string
)
