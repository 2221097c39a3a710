package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes the plan as dir/plan.json.
func (p *Plan) Write(dir string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, File), append(b, '\n'), 0o644)
}

// Read reads the plan a run wrote into the results directory dir. The
// plan has no Spec: what the results need of the spec is in the plan.
func Read(dir string) (*Plan, error) {
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	for i := range p.Runs {
		// A plan.json older than the runs' own pooler and network: the
		// plan's were every run's.
		r := &p.Runs[i]
		if r.Pooler == nil && r.Network == nil && r.Placement == "" {
			r.Pooler, r.Network = p.Pooler, p.Network
		}
	}
	return &p, nil
}

// Run is the run of the given ID, nil when the plan has none.
func (p *Plan) Run(id string) *Run {
	for i := range p.Runs {
		if p.Runs[i].ID == id {
			return &p.Runs[i]
		}
	}
	return nil
}
