package spec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func mustExpand(t *testing.T, src string) *Plan {
	t.Helper()
	p, problems := Expand(mustParse(t, src))
	if len(problems) > 0 {
		t.Fatalf("Expand: unexpected problems:\n%s", joinProblems(problems))
	}
	return p
}

// point is a run without its seed, index and ID, for comparing order.
func point(r Run) string {
	var set []string
	for _, k := range sortedKeys(r.Settings) {
		set = append(set, k+"="+r.Settings[k])
	}
	return fmt.Sprintf("%s/%d/%g/%d/%s/r%d", r.Model, r.Tenants, r.Scale, r.Clients, strings.Join(set, ","), r.Repetition)
}

func TestExpandOrder(t *testing.T) {
	p := mustExpand(t, `
name: t
repeat: 2
order: blocked
sut:
  settings:
    work_mem: [8MB, 4MB]
    fsync: "off"
    autovacuum: [on, off]
tenancy: {model: [instance, schema], tenants: [2, 1]}
workload: {name: tpcb, scale: [1, 0.5], clients: [4, 2]}
`)
	if len(p.Runs) != 2*2*2*2*2*2*2 {
		t.Fatalf("got %d runs, want 128", len(p.Runs))
	}
	if !reflect.DeepEqual(p.SettingKeys, []string{"autovacuum", "work_mem"}) {
		t.Errorf("SettingKeys = %v", p.SettingKeys)
	}
	// Written order within each dimension; model outermost, then tenants,
	// scale, clients, settings by key, repetition innermost.
	want := []string{
		"instance/2/1/4/autovacuum=on,fsync=off,work_mem=8MB/r1",
		"instance/2/1/4/autovacuum=on,fsync=off,work_mem=8MB/r2",
		"instance/2/1/4/autovacuum=on,fsync=off,work_mem=4MB/r1",
		"instance/2/1/4/autovacuum=on,fsync=off,work_mem=4MB/r2",
		"instance/2/1/4/autovacuum=off,fsync=off,work_mem=8MB/r1",
	}
	for i, w := range want {
		if got := point(p.Runs[i]); got != w {
			t.Errorf("run %d = %s, want %s", i+1, got, w)
		}
	}
	last := "schema/1/0.5/2/autovacuum=off,fsync=off,work_mem=4MB/r2"
	if got := point(p.Runs[len(p.Runs)-1]); got != last {
		t.Errorf("last run = %s, want %s", got, last)
	}
	// Dimensions change at the expected strides.
	stride := func(get func(Run) string) int {
		for i := 1; i < len(p.Runs); i++ {
			if get(p.Runs[i]) != get(p.Runs[0]) {
				return i
			}
		}
		return 0
	}
	for _, c := range []struct {
		name string
		get  func(Run) string
		want int
	}{
		{"repetition", func(r Run) string { return fmt.Sprint(r.Repetition) }, 1},
		{"work_mem", func(r Run) string { return r.Settings["work_mem"] }, 2},
		{"autovacuum", func(r Run) string { return r.Settings["autovacuum"] }, 4},
		{"clients", func(r Run) string { return fmt.Sprint(r.Clients) }, 8},
		{"scale", func(r Run) string { return fmt.Sprint(r.Scale) }, 16},
		{"tenants", func(r Run) string { return fmt.Sprint(r.Tenants) }, 32},
		{"model", func(r Run) string { return r.Model }, 64},
	} {
		if got := stride(c.get); got != c.want {
			t.Errorf("%s changes every %d runs, want %d", c.name, got, c.want)
		}
	}
	seen := map[string]bool{}
	for i, r := range p.Runs {
		if r.Index != i+1 || r.ID != fmt.Sprintf("%03d", i+1) {
			t.Errorf("run %d: Index %d ID %q", i+1, r.Index, r.ID)
		}
		if len(r.Settings) != 3 {
			t.Errorf("run %s: settings %v, want all 3 keys", r.ID, r.Settings)
		}
		if seen[point(r)] {
			t.Errorf("run %s repeats point %s", r.ID, point(r))
		}
		seen[point(r)] = true
	}
	if p.Spec.Name != "t" {
		t.Error("plan should refer to its spec")
	}
}

func TestExpandSingle(t *testing.T) {
	p := mustExpand(t, minimal)
	if len(p.Runs) != 1 || p.SettingKeys != nil {
		t.Fatalf("got %+v", p)
	}
	r := p.Runs[0]
	if r.ID != "001" || r.Model != "schema" || r.Tenants != 1 || r.Scale != 1 || r.Clients != 1 || r.Repetition != 1 || r.Settings == nil {
		t.Errorf("got %+v", r)
	}
}

func TestExpandIDWidth(t *testing.T) {
	p := mustExpand(t, minimal+"repeat: 1000\n")
	if p.Runs[0].ID != "0001" || p.Runs[999].ID != "1000" {
		t.Errorf("IDs of a 1000-run plan: %s .. %s, want 0001 .. 1000", p.Runs[0].ID, p.Runs[999].ID)
	}
}

func TestExpandRefusesInvalid(t *testing.T) {
	s := valid()
	s.Workload.Clients = Ints{0}
	p, problems := Expand(s)
	if p != nil || len(problems) != 1 || problems[0].Path != "workload.clients[0]" {
		t.Errorf("got %v, %v", p, problems)
	}
}

func TestSeeds(t *testing.T) {
	src := `
name: t
seed: 42
repeat: 3
sut: {settings: {work_mem: [4MB, 8MB]}}
tenancy: {model: [schema, database], tenants: [1, 2]}
workload: {name: tpcb, clients: 2}
`
	p := mustExpand(t, src)
	for _, r := range p.Runs {
		if r.Seed < 0 {
			t.Errorf("run %s: negative seed %d", r.ID, r.Seed)
		}
		// same scale: same data and choices, whatever the model,
		// tenants, clients, settings or repetition
		if r.Seed != p.Runs[0].Seed {
			t.Errorf("run %s (%s) has seed %d, run 001 %d: want the same at one scale", r.ID, point(r), r.Seed, p.Runs[0].Seed)
		}
	}
	scaled := mustExpand(t, strings.Replace(src, "clients: 2}", "clients: 2, scale: [1, 2]}", 1))
	seeds := map[int64]bool{}
	for _, r := range scaled.Runs {
		seeds[r.Seed] = true
	}
	if len(seeds) != 2 {
		t.Errorf("scales 1 and 2 give %d distinct seeds, want 2", len(seeds))
	}

	// Stable: the same spec gives the same seeds, and this value is pinned
	// so that a change of the derivation is a visible, deliberate one
	// (results of older experiments could not be reproduced otherwise).
	again := mustExpand(t, src)
	for i := range p.Runs {
		if p.Runs[i].Seed != again.Runs[i].Seed {
			t.Fatalf("run %s: seed changed between expansions", p.Runs[i].ID)
		}
	}
	if got, want := mustExpand(t, minimal).Runs[0].Seed, int64(pinnedSeed); got != want {
		t.Errorf("seed of the minimal spec = %d, want %d", got, want)
	}

	// By value, not position: adding a value to a list leaves the other
	// runs' seeds alone.
	more := mustExpand(t, strings.Replace(src, "tenants: [1, 2]", "tenants: [3, 1, 2]", 1))
	for _, r := range more.Runs {
		if r.Seed != p.Runs[0].Seed {
			t.Errorf("run %s: seed %d became %d when another tenants value was added", r.ID, p.Runs[0].Seed, r.Seed)
		}
	}
}

// pinnedSeed is RunSeed of the minimal spec's only run (seed 1, scale 1).
const pinnedSeed = 2030372131068916759
