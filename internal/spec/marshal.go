package spec

import (
	"bytes"
	"errors"

	"gopkg.in/yaml.v3"
)

// Marshal writes s as YAML, every key present with its value (defaults
// filled), in the order of docs/spec.md. Parse reads the result back to an
// equal spec; the results directory keeps it as the resolved spec.yaml.
// workload.options is written as it was read, and left out when empty.
func Marshal(s *Spec) ([]byte, error) {
	if s == nil {
		return nil, errors.New("spec: Marshal of a nil spec")
	}
	// A mirror of Spec: it orders the keys like the docs and leaves out
	// empty options, which Spec's own tags would write as "options: null".
	type workload struct {
		Name      string     `yaml:"name"`
		Scale     Floats     `yaml:"scale"`
		Clients   Ints       `yaml:"clients"`
		Duration  Duration   `yaml:"duration"`
		Warmup    Duration   `yaml:"warmup"`
		Provision string     `yaml:"provision"`
		Load      LoadShape  `yaml:"load"`
		Schedule  *Schedule  `yaml:"schedule,omitempty"`
		Pattern   *Pattern   `yaml:"pattern,omitempty"`
		SLA       *SLA       `yaml:"sla,omitempty"`
		Reads     string     `yaml:"reads,omitempty"`
		Options   *yaml.Node `yaml:"options,omitempty"`
		Cases     []Case     `yaml:"cases,omitempty"`
	}
	type sut struct {
		Engine    Strings     `yaml:"engine"`
		Provider  string      `yaml:"provider"`
		Version   any         `yaml:"version"`
		Transport string      `yaml:"transport,omitempty"`
		Resources Resources   `yaml:"resources"`
		Settings  any         `yaml:"settings"`
		Servers   []Server    `yaml:"servers,omitempty"`
		Pooler    *Pooler     `yaml:"pooler,omitempty"`
		Network   *Network    `yaml:"network,omitempty"`
		Placement []Placement `yaml:"placement,omitempty"`
		Storage   Storage     `yaml:"storage"`
		// Replicas and Replication: written when some run has replicas.
		Replicas    Ints   `yaml:"replicas,omitempty"`
		Replication string `yaml:"replication,omitempty"`
	}
	out := struct {
		Name   string `yaml:"name"`
		Seed   int64  `yaml:"seed"`
		Repeat int    `yaml:"repeat"`
		// Order as written: left out, it resolves from repeat again.
		Order    string   `yaml:"order,omitempty"`
		Probe    *Probe   `yaml:"probe,omitempty"`
		Progress Duration `yaml:"progress"`
		SUT      sut      `yaml:"sut"`
		Tenancy  Tenancy  `yaml:"tenancy"`
		Workload workload `yaml:"workload"`
		// Interference is written as it was read, left out when empty.
		Interference *yaml.Node `yaml:"interference,omitempty"`
		Cost         Cost       `yaml:"cost"`
	}{
		Name:     s.Name,
		Seed:     s.Seed,
		Repeat:   s.Repeat,
		Order:    s.Order,
		Probe:    s.Probe,
		Progress: s.Progress,
		SUT: sut{
			Engine:    s.SUT.Engine,
			Provider:  s.SUT.Provider,
			Version:   s.SUT.Version,
			Transport: s.SUT.Transport,
			Resources: s.SUT.Resources,
			Settings:  s.SUT.Settings,
			Servers:   s.SUT.Servers,
			Pooler:    s.SUT.Pooler,
			Network:   s.SUT.Network,
			Placement: s.SUT.Placement,
			Storage:   s.SUT.Storage,
		},
		Tenancy: s.Tenancy,
		Cost:    s.Cost,
		Workload: workload{
			Name:      s.Workload.Name,
			Scale:     s.Workload.Scale,
			Clients:   s.Workload.Clients,
			Duration:  s.Workload.Duration,
			Warmup:    s.Workload.Warmup,
			Provision: s.Workload.Provision,
			Load:      s.Workload.Load,
			Schedule:  s.Workload.Schedule,
			Pattern:   s.Workload.Pattern,
			SLA:       s.Workload.SLA,
		},
	}
	if len(s.SUT.Placement) > 0 {
		// Each placement has its transport; sut.transport beside them is
		// refused.
		out.SUT.Transport = ""
	}
	if s.MostReplicas() > 0 || len(s.SUT.Replicas) != 1 {
		out.SUT.Replicas = s.SUT.Replicas
	}
	if s.SUT.Replication != ReplicationAsync {
		out.SUT.Replication = s.SUT.Replication
	}
	if s.Workload.Reads != ReadsPrimary {
		out.Workload.Reads = s.Workload.Reads
	}
	if len(s.SUT.EngineVersions) > 0 {
		out.SUT.Version = s.SUT.EngineVersions
	}
	switch {
	case len(s.SUT.EngineSettings) > 0:
		out.SUT.Settings = s.SUT.EngineSettings
	case s.SUT.Settings == nil:
		out.SUT.Settings = map[string]Values{} // "settings: {}" says there are none
	}
	out.Workload.Cases = s.Workload.Cases
	if o := withSections(s.Workload.Options, s.Workload.EngineOptions); !IsNull(&o) {
		out.Workload.Options = &o
	}
	if !IsNull(&s.Interference) {
		in := s.Interference
		out.Interference = &in
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
