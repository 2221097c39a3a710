package spec

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Run is one point of the plan: one deployment, T tenants, all phases.
type Run struct {
	Index int `json:"index"` // 1-based position in the plan
	// ID is Index zero-padded to at least 3 digits ("001"), more when the
	// plan has over 999 runs, so that IDs sort in plan order. Stable for a
	// spec.
	ID string `json:"id"`
	// Engine is the run's engine, one of sut.engine ("" in a plan.json
	// written before sut.engine was a dimension: the plan's engine).
	Engine  string  `json:"engine,omitempty"`
	Model   string  `json:"model"`
	Tenants int     `json:"tenants"`
	Scale   float64 `json:"scale"`
	// Clients is the connections each tenant opens: workload.clients for a
	// closed load without schedule, the most clients of the schedule or
	// pattern, or the pool of an open load.
	Clients int `json:"clients"`
	// Rate is the open load's arrivals per second per tenant (0 when the
	// schedule or pattern gives the rates, or the load is closed).
	Rate float64 `json:"rate"`
	// Pattern is the CloudyBench pattern of the run (Zhang et al. 2025, section II-C/D), "" for none.
	Pattern string `json:"pattern,omitempty"`
	// Storage and Volume are the run's sut.storage kind and volume,
	// CPUPolicy its sut.resources.cpu_policy ("" in a plan.json written
	// before they existed: disk, shared, none).
	Storage   string `json:"storage"`
	Volume    string `json:"volume"`
	CPUPolicy string `json:"cpu_policy"`
	// Placement is the name of the run's sut.placement, "" for a spec
	// without it (Spec.SUT.PlacementOf gives its transport, pooler and
	// network).
	Placement string `json:"placement,omitempty"`
	// Replicas is the hot standbys each of the run's servers gets
	// (sut.replicas), 0 for none.
	Replicas int `json:"replicas,omitempty"`
	// Provision is how the run's tenants get their data, "load" or
	// "clone": workload.provision where the model can clone (the plan
	// settles it).
	Provision string `json:"provision"`
	// Case is the name of the run's entry of workload.cases, "" for none;
	// its values are in the run's Settings, Scale and Clients, and in
	// Options.
	Case string `json:"case,omitempty"`
	// Options are the run's workload.options when its case replaces some
	// of them, nil when the run takes the spec's.
	Options    *yaml.Node `json:"-"`
	Repetition int        `json:"repetition"` // 1-based
	// Round is the round the run belongs to: its repetition. In
	// interleaved and shuffled order a round holds one run of every
	// point, run together, so points compare within it.
	Round int `json:"round"`
	// Point is the run's matrix point, 1-based in blocked order: the
	// runs of a point differ only in their round.
	Point int `json:"point"`
	// Settings is every sut.settings key of the run's engine with this
	// run's value.
	Settings map[string]string `json:"settings"`
	// Interference is the run's value of each list-valued interference
	// param, by its key ("interference[0].load": "30"); nil when there
	// are none. Spec.InterferenceOf gives the run's list.
	Interference map[string]string `json:"interference,omitempty"`
	// Seed is the run's data and transaction seed, derived from Spec.Seed
	// and the run's scale only, so that runs of other models, settings or
	// repetitions replay the same data and choices. See RunSeed.
	Seed int64 `json:"seed"`
}

// ScaleOutGroup names the run's scale-out group: the runs of one
// experiment that differ only in their replicas (sut.replicas), over
// which Zhang et al.'s (2025) E2-Score (eq. 5) is computed
// (results.E2Scores; docs/metrics.md). It is the run as plan.json
// records it less what numbers and orders it (index, ID, point,
// repetition, round, seed) and less its replica count: any other
// dimension, a case included, splits groups.
func (r Run) ScaleOutGroup() string {
	id := r.ID
	r.Index, r.ID, r.Point, r.Repetition, r.Round, r.Seed, r.Replicas = 0, "", 0, 0, 0, 0, 0
	b, err := json.Marshal(r)
	if err != nil {
		return id // no group shared with another run
	}
	return string(b)
}

// Plan is the spec expanded: every matrix point x every repetition, in a
// stable order.
type Plan struct {
	Spec *Spec
	Runs []Run
	// SettingKeys are the sut.settings keys whose value is a list (matrix
	// dimensions) or that a case of workload.cases sets, sorted: the
	// settings that differ from run to run, of every engine (a run has
	// its engine's only).
	SettingKeys []string
	// InterferenceKeys are the list-valued interference params
	// ("interference[0].load"), in dimension order.
	InterferenceKeys []string
	// StreamsEnd says the workload's clients stop once they have run
	// their work (workload.Finisher: a TPC-H query stream), so a run's
	// workload phase may end before its warmup + duration. Expand cannot
	// know it (workloads are registered apart from the spec): the caller
	// that knows the workloads sets it (cmd/tenantbench), and WriteTable
	// then prints the workload time as an upper bound.
	StreamsEnd bool
}

// Problem is one thing wrong with a spec: where, what and what is allowed.
type Problem struct {
	Path    string // YAML path, e.g. "workload.clients[1]"
	Value   string // the offending value as written ("" when missing)
	Allowed string // what would be accepted, in plain words
	// Line is the line in the spec file where Path is written, 0 when it is
	// not written (a missing key) or the spec did not come from YAML.
	Line int
}

func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Path)
	if p.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", p.Line)
	}
	if p.Value != "" {
		b.WriteString(": ")
		b.WriteString(p.Value)
	}
	b.WriteString(": ")
	b.WriteString(p.Allowed)
	return b.String()
}
