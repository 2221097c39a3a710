package plan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// placing are the registries with the local provider's answers at plan
// replaced: storage and cores it can give (can) or not (why), so that
// the plan's side is tested as root and not alike. The external provider
// stays as it is: it starts no server.
func placing(storage, cores string) Registries {
	r := regs()
	f := r.Providers["local"]
	f.Storage = func(kind, volume string) string { return storage }
	f.Cores = func() string { return cores }
	p := provider.Registry{}
	for name, g := range r.Providers {
		if name == "local" {
			g = f
		}
		p[name] = g
	}
	r.Providers = p
	return r
}

const placed = minimal + `tenancy: {model: instance, tenants: 2}
sut:
  resources: {cpus: 1, cpu_policy: [pack, spread]}
  storage: {kind: [disk, tmpfs], volume: per-instance, size: 256MiB}
`

// Both are matrix dimensions: each run carries its values into plan.json,
// and its servers the cores the policy gave them.
func TestPlacementDimensions(t *testing.T) {
	s, pl, problems := spec.ParsePlaced([]byte(placed))
	p, problems := resolve(s, pl, problems, placing("", ""), Machine{MemoryBytes: 1 << 40, Cores: []int{0, 1}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if len(p.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(p.Runs))
	}
	type got struct {
		storage, volume, policy string
		cores                   [][]int
	}
	want := []got{
		{"disk", "per-instance", "pack", [][]int{{0, 1}, {0, 1}}},
		{"disk", "per-instance", "spread", [][]int{{0}, {1}}},
		{"tmpfs", "per-instance", "pack", [][]int{{0, 1}, {0, 1}}},
		{"tmpfs", "per-instance", "spread", [][]int{{0}, {1}}},
	}
	for i, r := range p.Runs {
		g := got{r.Storage, r.Volume, r.CPUPolicy, nil}
		for _, in := range r.Instances {
			g.cores = append(g.cores, in.Cores)
		}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("run %s: %+v, want %+v", r.ID, g, want[i])
		}
		if st := p.StorageOf(&p.Runs[i], &r.Instances[0]); st.Kind != r.Storage || st.SizeBytes != 256<<20 {
			t.Errorf("run %s: storage %+v", r.ID, st)
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"storage":"tmpfs"`, `"volume":"per-instance"`, `"cpu_policy":"spread"`, `"cores":[0,1]`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("plan.json lacks %s", s)
		}
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"storage", "cpu_policy", "tmpfs", "spread", "cores of run 002 (cpu_policy spread): t01 on 0, t02 on 1"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("the plan's table lacks %q:\n%s", s, table.String())
		}
	}
	// A spec that keeps today's storage shows no such column.
	table.Reset()
	if err := mustBuild(t, minimal).WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "cpu_policy") {
		t.Errorf("a plan without placement shows it:\n%s", table.String())
	}
}

// A provider that cannot give the storage or the cores is refused at
// plan, at the value's path and line, with its reason.
func TestPlacementRefused(t *testing.T) {
	s, pl, problems := spec.ParsePlaced([]byte(placed))
	_, problems = resolve(s, pl, problems, placing("needs root", "no cpuset controller"), big)
	want := map[string]string{
		"sut.storage.volume":          "disk on a per-instance volume: needs root",
		"sut.storage.kind[1]":         "needs root",
		"sut.resources.cpu_policy[0]": "no cpuset controller",
		"sut.resources.cpu_policy[1]": "no cpuset controller",
	}
	for _, pr := range problems {
		if w, ok := want[pr.Path]; ok && strings.Contains(pr.Allowed, w) && pr.Line > 0 {
			delete(want, pr.Path)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing problems %v among:\n%v", want, problems)
	}
	// The default asks the provider nothing.
	if _, problems := buildSrc(t, minimal, big); len(problems) > 0 {
		t.Error(problems)
	}
}

// A provider that starts no server has no data directory to place.
func TestPlacementExternal(t *testing.T) {
	s := &spec.Spec{SUT: spec.SUT{Provider: "external",
		Storage:   spec.Storage{Kind: spec.Strings{"tmpfs"}, Volume: spec.Strings{"shared"}},
		Resources: spec.Resources{CPUPolicy: spec.Strings{"spread"}}}}
	problems := checkPlacement(s, regs())
	if len(problems) != 2 || problems[0].Path != "sut.storage.kind[0]" || !strings.Contains(problems[0].Allowed, "starts no server") ||
		problems[1].Path != "sut.resources.cpu_policy[0]" {
		t.Errorf("problems: %v", problems)
	}
}

func TestPlaceCores(t *testing.T) {
	for _, c := range []struct {
		policy string
		cpus   []float64
		cores  []int
		want   [][]int
	}{
		{spec.CPUPolicyNone, []float64{1, 1}, []int{0, 1}, [][]int{nil, nil}},
		{spec.CPUPolicyPack, []float64{0.5, 0.5}, []int{0, 1}, [][]int{{0}, {0}}},
		{spec.CPUPolicyPack, []float64{1, 0.5}, []int{0, 1, 2, 3}, [][]int{{0, 1}, {0, 1}}},
		{spec.CPUPolicyPack, []float64{0, 0, 0}, []int{0, 1}, [][]int{{0, 1}, {0, 1}, {0, 1}}},
		{spec.CPUPolicySpread, []float64{1, 1, 1}, []int{0, 1}, [][]int{{0}, {1}, {0}}},
		{spec.CPUPolicySpread, []float64{2, 0.5}, []int{2, 3, 5}, [][]int{{2, 3}, {5}}},
	} {
		if got := placeCores(c.policy, c.cpus, c.cores); !reflect.DeepEqual(got, c.want) {
			t.Errorf("placeCores(%s, %v, %v) = %v, want %v", c.policy, c.cpus, c.cores, got, c.want)
		}
	}
}

// Without sut.storage.size each file system is sized from the rows its
// servers' tenants load; a RAM disk the machine's memory cannot hold is
// refused at plan.
func TestVolumeSizes(t *testing.T) {
	src := minimal + `tenancy: {model: instance, tenants: 2}
sut:
  storage: {kind: tmpfs, volume: [per-instance, shared]}
`
	s, pl, problems := spec.ParsePlaced([]byte(src))
	p, problems := resolve(s, pl, problems, placing("", ""), big)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	rows := int64(100000 + 10 + 1) // tpcb at scale 1: accounts, tellers, branches
	data := rows * rowBytes
	for i, want := range []int64{2*data + walBytes, 2*2*data + 2*walBytes} {
		for _, in := range p.Runs[i].Instances {
			if in.VolumeBytes != want {
				t.Errorf("run %s (%s): server %s gets %d bytes, want %d", p.Runs[i].ID, p.Runs[i].Volume, in.Name, in.VolumeBytes, want)
			}
		}
	}
	s, pl, problems = spec.ParsePlaced([]byte(strings.Replace(src, "{name: tpcb}", "{name: tpcb, scale: 100}", 1)))
	_, problems = resolve(s, pl, problems, placing("", ""), Machine{MemoryBytes: 1 << 30})
	if len(problems) != 1 || problems[0].Path != "sut.storage.kind" || !strings.Contains(problems[0].Allowed, "more than this machine's memory") {
		t.Errorf("problems: %v", problems)
	}
}
