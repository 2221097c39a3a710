// Package plan resolves an experiment file into the plan every command
// works from: parsed, validated against everything that varies (workloads,
// tenancy models, the machine) with every problem at once, and expanded
// into runs that hold what execution needs. Build is the one way to get
// one; `plan`, `run`, `calibrate` and the bench tools call it, and the run
// writes it into the results (plan.json), where `report`, `check` and
// `compare` read it back instead of the spec.
package plan

import (
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/pooler"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/provider/providers"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// File is the name of the resolved plan in a results directory.
const File = "plan.json"

// Registries are what a spec is resolved against: each thing that varies
// is registered by name in the package that owns it.
type Registries struct {
	Workloads workload.Registry
	Models    tenancy.Models
	Engines   engine.Registry
	Providers provider.Registry
}

// Builtin is every model, engine and provider tenantbench has, with the
// given workloads (registered by the command, which imports them).
func Builtin(w workload.Registry) Registries {
	return Registries{Workloads: w, Models: tenancy.Builtin(), Engines: engine.Builtin(), Providers: providers.Builtin()}
}

// Plan is a resolved experiment.
type Plan struct {
	Name string `json:"name"`
	// Engine and Provider are sut.engine and sut.provider; Version the
	// server version asked for, "" for the newest the provider finds.
	// With several engines (Dimensions.Engines) Engine is the first:
	// each run's is its own (Run.Engine), EngineOf says which. Version
	// is then the first engine's, and Versions, when sut.version is
	// keyed by engine, each engine's that asks for one: VersionOf says
	// a run's.
	Engine   string            `json:"engine"`
	Provider string            `json:"provider"`
	Version  string            `json:"version,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
	// Workload is workload.name.
	Workload string `json:"workload"`
	// SettingKeys are the sut.settings keys that differ from run to run.
	SettingKeys []string `json:"setting_keys"`
	// InterferenceKeys are the list-valued interference params, matrix
	// dimensions ("interference[0].load"); each run's value is in its
	// "interference".
	InterferenceKeys []string `json:"interference_keys,omitempty"`
	// StreamsEnd says the workload's clients stop once they have run their
	// work (a TPC-H query stream), so a run may end before its warmup +
	// duration.
	StreamsEnd bool      `json:"streams_end"`
	Resources  Resources `json:"resources"`
	// Pooler is sut.pooler: the connection pooler in front of each
	// server, nil for none. Each run has its own (Run.Pooler): with
	// sut.placement the runs differ and this is nil.
	Pooler *pooler.Config `json:"pooler,omitempty"`
	// Network is sut.network: the emulated link every run's servers sit
	// behind, in a network namespace of the run; nil for loopback. Each
	// run has its own (Run.Network): with sut.placement the runs differ
	// and this is nil.
	Network *netns.Link `json:"network,omitempty"`
	// Replication (sut.replication) and Reads (workload.reads) are how
	// the runs with replicas use them (each run's Replicas); ReplicaUser
	// says the workload reads them by design. Empty when no run has any.
	Replication string `json:"replication,omitempty"`
	Reads       string `json:"reads,omitempty"`
	ReplicaUser bool   `json:"replica_user,omitempty"`
	Load        Load   `json:"load"`
	// Dimensions are the values of the matrix's main dimensions, as the
	// spec lists them.
	Dimensions Dimensions `json:"dimensions"`
	// Order is how the runs follow each other in time (spec.OrderBlocked,
	// OrderInterleaved, OrderShuffled): Runs are in it. OrderDefault says
	// the spec left it to the default.
	Order        string `json:"order"`
	OrderDefault bool   `json:"order_default,omitempty"`
	// Probe is the speed probe, nil for none.
	Probe *Probe `json:"probe,omitempty"`
	// Loads counts the data loads of the runs in this order (order.go).
	Loads Loads `json:"loads"`
	Runs  []Run `json:"runs"`
	// Servers are sut.servers, for a provider that places tenants on the
	// servers the user runs (external); each Instance names its own.
	Servers []provider.Server `json:"servers,omitempty"`
	// Cluster is sut.kubernetes, for a provider that runs its servers in
	// a Kubernetes cluster, with its defaults.
	Cluster *provider.Cluster `json:"kubernetes,omitempty"`

	// Warnings are what the checks let pass but a user should read (a
	// custom setting no server checks, a server version the run will
	// fetch), each at its place in the spec. Only a plan built from a
	// spec has them.
	Warnings []spec.Problem `json:"-"`

	// Spec is the spec the plan was built from; nil for a plan read back
	// from a results directory.
	Spec *spec.Spec `json:"-"`
	// models are the tenancy models the plan was built with, which the
	// table asks what each run creates on the user's servers; nil for a
	// plan read back.
	models tenancy.Models
	// dataBytes is what each run (by ID) loads on file systems it makes
	// for its servers (sizeVolumes), for the machine's check.
	dataBytes map[string]int64
}

// Resources are sut.resources.
type Resources struct {
	CPUs        float64 `json:"cpus"`
	MemoryBytes int64   `json:"memory_bytes"`
	Divide      bool    `json:"divide"`
	// Schedule is sut.resources.schedule resolved, slot by slot (each
	// server's limits from at_s on the workload phase's clock); nil for
	// none.
	Schedule []Step `json:"schedule,omitempty"`
	// Autoscale is sut.resources.autoscale; nil for none.
	Autoscale *Autoscale `json:"autoscale,omitempty"`
}

// Step is one slot of sut.resources.schedule: from AtS seconds into the
// workload phase, each server's CPUs and memory bytes (0: no limit).
type Step struct {
	AtS         float64 `json:"at_s"`
	CPUs        float64 `json:"cpus"`
	MemoryBytes int64   `json:"memory_bytes"`
}

// Autoscale is sut.resources.autoscale as the run applies it.
type Autoscale struct {
	MinCPUs           float64 `json:"min_cpus"`
	MaxCPUs           float64 `json:"max_cpus"`
	TargetUtilization float64 `json:"target_utilization"`
	IntervalS         float64 `json:"interval_s"`
}

// describe says in a line how the servers' limits change during the
// workload phase, "" when they do not.
func (r Resources) describe() string {
	if a := r.Autoscale; a != nil {
		return fmt.Sprintf("autoscale: every %gs each server's CPU quota becomes the CPU it used over %g, "+
			"within %g to %g CPUs (runs/<id>/limits.csv)", a.IntervalS, a.TargetUtilization, a.MinCPUs, a.MaxCPUs)
	}
	if len(r.Schedule) == 0 {
		return ""
	}
	var parts []string
	for _, st := range r.Schedule {
		cpus, mem := "no CPU limit", "no memory limit"
		if st.CPUs > 0 {
			cpus = fmt.Sprintf("%g CPUs", st.CPUs)
		}
		if st.MemoryBytes > 0 {
			mem = spec.ByteSize(st.MemoryBytes).String()
		}
		parts = append(parts, fmt.Sprintf("from %gs %s, %s", st.AtS, cpus, mem))
	}
	return "resources of each server during the workload phase: " + strings.Join(parts, "; ") + " (runs/<id>/limits.csv)"
}

// resourcesOf is sut.resources as plan.json records it.
func resourcesOf(r spec.Resources) Resources {
	out := Resources{CPUs: r.CPUs, MemoryBytes: int64(r.Memory), Divide: r.Divide}
	for _, st := range r.Steps() {
		out.Schedule = append(out.Schedule, Step{AtS: st.At.Seconds(), CPUs: st.CPUs, MemoryBytes: st.MemoryBytes})
	}
	out.Autoscale = autoscaleOf(r.Autoscale)
	return out
}

// autoscaleOf is an autoscale policy as plan.json records it; nil for
// none.
func autoscaleOf(a *spec.Autoscale) *Autoscale {
	if a == nil {
		return nil
	}
	return &Autoscale{MinCPUs: a.MinCPUs, MaxCPUs: a.MaxCPUs, TargetUtilization: a.TargetUtilization,
		IntervalS: a.Interval.D().Seconds()}
}

// Dimensions are the spec's lists of models, tenant counts, scales and
// clients.
type Dimensions struct {
	// Engines is sut.engine when it lists several, nil with one.
	Engines []string  `json:"engines,omitempty"`
	Models  []string  `json:"models"`
	Tenants []int     `json:"tenants"`
	Scales  []float64 `json:"scales"`
	Clients []int     `json:"clients"`
	Repeat  int       `json:"repeat"`
	Cases   int       `json:"cases"`
	// Storage, Volumes and CPUPolicies are sut.storage.kind,
	// sut.storage.volume and sut.resources.cpu_policy.
	Storage     []string `json:"storage,omitempty"`
	Volumes     []string `json:"volumes,omitempty"`
	CPUPolicies []string `json:"cpu_policies,omitempty"`
	// Placements are the names of sut.placement, none without it.
	Placements []string `json:"placements,omitempty"`
}

// Load describes the load of every run in words, for the plan's table and
// the report: the per-second targets of a run are in its own files.
type Load struct {
	// Description is the load in a line, "" for the plain closed loop.
	Description string `json:"description"`
	// Unit names what a target counts: clients or arrivals per second.
	Unit string `json:"unit"`
	// Rates says the targets are arrival rates (else clients).
	Rates bool `json:"rates"`
	// Varies says the targets follow a schedule or a pattern.
	Varies bool `json:"varies"`
	// Schedule is workload.schedule in a few words, "" for none.
	Schedule string `json:"schedule,omitempty"`
	// Pattern is workload.pattern, nil for none.
	Pattern *Pattern `json:"pattern,omitempty"`
}

// Pattern is a pattern of Zhang et al. 2025 (CloudyBench), section II-D.
type Pattern struct {
	Names []string `json:"names"`
	Tau   float64  `json:"tau"`
	SlotS float64  `json:"slot_s"`
}

// PatternOf is the pattern run r follows: its case's, or workload.pattern;
// nil for none.
func (p *Plan) PatternOf(r *Run) *Pattern {
	switch {
	case r.CasePattern != nil:
		return r.CasePattern
	case r.Pattern != "":
		return p.Load.Pattern
	}
	return nil
}

// Run is one run of the plan, resolved.
type Run struct {
	spec.Run
	// Workload is workload.name; Options the run's workload.options as
	// YAML, the case's merged in.
	Workload string `json:"workload"`
	Options  string `json:"options,omitempty"`
	// Interaction is the workload's interaction mode with these options
	// (workload.Interactor): how its transactions travel to the server;
	// "" for a workload that has one way only.
	Interaction string  `json:"interaction,omitempty"`
	WarmupS     float64 `json:"warmup_s"`
	// DurationS is workload.duration: at most, when the plan's StreamsEnd.
	DurationS float64 `json:"duration_s"`
	// Transport, Pooler and Network are the run's placement's
	// (spec.Run.Placement): sut.transport, sut.pooler and sut.network, or
	// those of its sut.placement. Pooler is nil for none, Network nil for
	// loopback; Network's emulator is the one chosen at plan.
	Transport string         `json:"transport"`
	Pooler    *pooler.Config `json:"pooler,omitempty"`
	Network   *netns.Link    `json:"network,omitempty"`
	// Provisioning is how the tenants get their servers, roles and data:
	// a strategy of package provision, chosen here once.
	Provisioning string `json:"provisioning"`
	// Instances are the servers the run's tenancy model needs.
	Instances []Instance `json:"instances"`
	// ServerPerTenant says the model gives each tenant a server of its
	// own, so that an empty server is part of what a tenant adds.
	ServerPerTenant bool `json:"server_per_tenant"`
	// TenantList is every tenant of the run, in order.
	TenantList []Tenant `json:"tenant_list"`
	// Isolation is tenancy.isolation: spec.IsolationAudit runs the
	// isolation audit in the check phase; "" or spec.IsolationOff do not.
	Isolation string `json:"isolation,omitempty"`
	// Guards are tenancy.guards: the guards the run sets on its tenants
	// after loading them (tenancy.SetGuards), none when empty.
	Guards []string `json:"guards,omitempty"`
	// ReplicaUser says the run's workload reads the replicas by design
	// (workload.ReplicaUser): a case's own workload may, the spec's not.
	ReplicaUser bool `json:"replica_user,omitempty"`
	// FailoverShare is how many times its clients' connections a tenant
	// may hold on one server after the run's fail-overs, when more than
	// once (failoverShare): its servers' max_connections and its
	// CONNECTION LIMIT guard count them so.
	FailoverShare int `json:"failover_share,omitempty"`
	// Autoscale is the run's case's autoscale policy, which replaces the
	// plan's (Resources.Autoscale); nil: the plan's.
	Autoscale *Autoscale `json:"autoscale,omitempty"`
	// Scores are the PERFECT scores (metrics.PerfectScores) the run
	// measures for Zhang et al.'s Table IX, its case's scores; none:
	// every score it has (results.PerfectOf).
	Scores []string `json:"scores,omitempty"`
	// CasePattern is the run's case's own pattern (its one name, tau and
	// slot), nil when the run follows workload.pattern or none;
	// Plan.PatternOf gives either.
	CasePattern *Pattern `json:"case_pattern,omitempty"`
}

// AutoscaleOf is run r's autoscale policy: its own or the plan's; nil
// for none.
func (p *Plan) AutoscaleOf(r *Run) *Autoscale {
	if r.Autoscale != nil {
		return r.Autoscale
	}
	return p.Resources.Autoscale
}

// EngineOf is the engine run r runs on: its own, or the plan's for a run
// of a plan.json written before sut.engine was a dimension.
func (p *Plan) EngineOf(r *Run) string {
	if r.Engine != "" {
		return r.Engine
	}
	return p.Engine
}

// VersionOf is the server version run r's engine asks for, "" for the
// newest found.
func (p *Plan) VersionOf(r *Run) string { return p.VersionFor(p.EngineOf(r)) }

// VersionFor is the server version engine's runs ask for.
func (p *Plan) VersionFor(engine string) string {
	if p.Versions != nil {
		return p.Versions[engine]
	}
	return p.Version
}

// Audits says whether the run's check phase runs the isolation audit.
func (r *Run) Audits() bool { return r.Isolation == spec.IsolationAudit }

// Instance is one server of a run: its name, its tenants and its limits.
type Instance struct {
	Name    string   `json:"name"`
	Tenants []string `json:"tenants"`
	CPUs    float64  `json:"cpus"`
	// MemoryBytes is the memory limit, 0 for none.
	MemoryBytes int64 `json:"memory_bytes"`
	// Server is the user's server the instance is placed on (Servers),
	// "" when the provider starts its own.
	Server string `json:"server,omitempty"`
	// MaxConnections is the least max_connections the server needs: the
	// clients of its tenants (under the guard connection_limit, each
	// tenant's limit; with sut.pooler, each tenant's pool too, which the
	// pooler holds open while the check connects direct) plus the
	// connections the engine reserves.
	MaxConnections int `json:"max_connections"`
	// Cores are the CPUs the server runs on, by the run's cpu_policy;
	// none for cpu_policy none (wherever the scheduler puts it).
	Cores []int `json:"cores,omitempty"`
	// VolumeBytes is the size of the file system the run makes for the
	// server's data (sut.storage; on a shared volume, the run's one),
	// sized from the data it must hold when sut.storage.size is not
	// given; 0 on the work directory's file system.
	VolumeBytes int64 `json:"volume_bytes,omitempty"`
}

// Tenant is one tenant of a run.
type Tenant struct {
	Name string `json:"name"`
	// Class is the tenant's class of tenancy.classes, "" without classes.
	Class string  `json:"class,omitempty"`
	Scale float64 `json:"scale"`
	// Conns is the connections the tenant opens: its clients, or the pool
	// of an open load.
	Conns int `json:"conns"`
	// Workload is the tenant's class's own workload, "" for the run's;
	// Options its workload.options as YAML when its class changes them,
	// "" for the run's.
	Workload string `json:"workload,omitempty"`
	Options  string `json:"options,omitempty"`
	// SLA is what the tenant must get (workload.sla, its class's keys
	// over it); nil for none.
	SLA *spec.SLA `json:"sla,omitempty"`
}

// Targets is the load of run r: its shape and every tenant's target over
// the workload phase. Only a plan built from a spec has it: a sinusoid's
// profile is sampled every second, so it is computed, not stored; the run
// writes the per-second sums into its own files.
func (p *Plan) Targets(r *Run) *load.Plan {
	if p.Spec == nil {
		return nil
	}
	return p.Spec.LoadPlan(&r.Run)
}

// WorkloadSpec is the workload run r builds: the spec's, with r's case's
// options, or its case's own workload (spec.WorkloadOf).
func (p *Plan) WorkloadSpec(r *Run) *spec.Workload {
	w := p.Spec.WorkloadOf(&r.Run)
	return &w
}

// TenantWorkload is what one tenant builds: its workload and scale.
type TenantWorkload struct {
	Spec  *spec.Workload
	Scale float64
}

// TenantWorkloads are the workloads the tenants of run r build, in order:
// the run's (WorkloadSpec), or their class's. Only a plan built from a
// spec has them.
func (p *Plan) TenantWorkloads(r *Run) []TenantWorkload {
	w := p.WorkloadSpec(r)
	out := make([]TenantWorkload, r.Tenants)
	if p.Spec.Tenancy.Classes == nil {
		for i := range out {
			out[i] = TenantWorkload{Spec: w, Scale: r.Scale}
		}
		return out
	}
	for i, m := range p.Spec.Members(&r.Run) {
		tw := *w
		tw.Name, tw.Options = m.Workload, *m.Options
		out[i] = TenantWorkload{Spec: &tw, Scale: m.Scale}
	}
	return out
}

// OptionsNode is the run's workload.options as a YAML node, for a plan
// read back from its file; an empty node when the run had none.
func (r *Run) OptionsNode() (*yaml.Node, error) {
	if r.Run.Options != nil {
		return r.Run.Options, nil
	}
	var doc yaml.Node
	if r.Options == "" {
		return &doc, nil
	}
	if err := yaml.Unmarshal([]byte(r.Options), &doc); err != nil {
		return nil, fmt.Errorf("run %s: options: %w", r.ID, err)
	}
	if len(doc.Content) == 0 {
		return &yaml.Node{}, nil
	}
	return doc.Content[0], nil
}

// TenantSpec is the workload tenant built, with its scale, as the plan
// recorded it: for a plan read back from its file (check, audit), where
// TenantWorkloads has no spec to resolve from. A tenant the run does not
// have gets the run's.
func (r *Run) TenantSpec(tenant string) (*spec.Workload, float64, error) {
	opts, err := r.OptionsNode()
	if err != nil {
		return nil, 0, err
	}
	w, scale := &spec.Workload{Name: r.Workload, Options: *opts}, r.Scale
	for _, t := range r.TenantList {
		if t.Name != tenant {
			continue
		}
		if t.Scale > 0 {
			scale = t.Scale
		}
		if t.Workload != "" {
			w.Name, w.Options = t.Workload, yaml.Node{}
		}
		if t.Options != "" {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(t.Options), &doc); err != nil {
				return nil, 0, fmt.Errorf("run %s: tenant %s: options: %w", r.ID, tenant, err)
			}
			if len(doc.Content) > 0 {
				w.Options = *doc.Content[0]
			}
		}
	}
	return w, scale, nil
}

// Names are the names of the run's tenants.
func (r *Run) Names() []string {
	out := make([]string, len(r.TenantList))
	for i, t := range r.TenantList {
		out[i] = t.Name
	}
	return out
}
