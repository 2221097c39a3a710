package spec

import "testing"

// TestScaleOutGroup: runs that differ only in sut.replicas (and in what
// numbers them) share an E2 group; any other dimension splits it.
func TestScaleOutGroup(t *testing.T) {
	p := mustExpand(t, `
name: e2
repeat: 2
sut: {replicas: [0, 1, 2]}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: [1, 2], duration: 5s}
`)
	groups := map[string]map[int]bool{}
	for _, r := range p.Runs {
		key := r.ScaleOutGroup()
		if groups[key] == nil {
			groups[key] = map[int]bool{}
		}
		groups[key][r.Replicas] = true
	}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want one per client count: %v", len(groups), groups)
	}
	for g, reps := range groups {
		if len(reps) != 3 {
			t.Errorf("group %s has replica counts %v, want 0, 1 and 2", g, reps)
		}
	}
}
