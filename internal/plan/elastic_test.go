package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// resizing is regs() with the local provider answering why as to
// changing its servers' limits.
func resizing(why string) Registries {
	r := regs()
	p := provider.Registry{}
	for name, f := range r.Providers {
		if name == "local" {
			f.Resizes = func() string { return why }
		}
		p[name] = f
	}
	r.Providers = p
	return r
}

const elasticSpec = `name: t
sut:
  resources:
    memory: 1GiB
    schedule: {slot: 10s, slots: [{cpus: 0.5}, {cpus: 1.5, memory: 2GiB}]}
workload: {name: tpcb, duration: 20s}
`

// The schedule resolved goes to plan.json; a provider that cannot resize
// is refused at the key's line, as is a slot's memory below the
// engine's least.
func TestElasticPlan(t *testing.T) {
	s, pl, problems := spec.ParsePlaced([]byte(elasticSpec))
	p, problems := resolve(s, pl, problems, resizing(""), big)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	b, err := json.Marshal(p.Resources)
	if err != nil {
		t.Fatal(err)
	}
	want := `"schedule":[{"at_s":0,"cpus":0.5,"memory_bytes":1073741824},{"at_s":10,"cpus":1.5,"memory_bytes":2147483648}]`
	if !strings.Contains(string(b), want) {
		t.Errorf("plan.json resources %s, want %s", b, want)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if line := "from 0s 0.5 CPUs, 1GiB; from 10s 1.5 CPUs, 2GiB"; !strings.Contains(table.String(), line) {
		t.Errorf("the plan's table lacks %q:\n%s", line, table.String())
	}
	s, pl, problems = spec.ParsePlaced([]byte(elasticSpec))
	_, problems = resolve(s, pl, problems, resizing("no cgroups here"), big)
	if len(problems) != 1 || problems[0].Path != "sut.resources.schedule" || problems[0].Line != 5 ||
		!strings.Contains(problems[0].Allowed, "no cgroups here") {
		t.Errorf("problems %v", problems)
	}
	auto := "name: t\nsut:\n  provider: external\n  servers: [{name: a, dsn_env: A_DSN}]\n  resources:\n    autoscale: {max_cpus: 2}\nworkload: {name: tpcb}\n"
	_, problems = buildSrc(t, auto, big)
	found := false
	for _, pr := range problems {
		found = found || (pr.Path == "sut.resources.autoscale" && pr.Line == 6 && strings.Contains(pr.Allowed, "cannot change a running server's limits"))
	}
	if !found {
		t.Errorf("external with autoscale: %v", problems)
	}
	small := strings.Replace(elasticSpec, "memory: 2GiB", "memory: 1MiB", 1)
	s, pl, problems = spec.ParsePlaced([]byte(small))
	_, problems = resolve(s, pl, problems, resizing(""), big)
	if len(problems) != 1 || problems[0].Path != "sut.resources.schedule.slots[1].memory" || problems[0].Line != 5 {
		t.Errorf("small memory: %v", problems)
	}
	// A slot's memory above the machine's.
	s, pl, problems = spec.ParsePlaced([]byte(elasticSpec))
	_, problems = resolve(s, pl, problems, resizing(""), Machine{MemoryBytes: 1536 << 20, OpenFiles: 1 << 30, Processes: 1 << 30})
	if len(problems) != 1 || problems[0].Path != "sut.resources.schedule.slots[1].memory" || !strings.Contains(problems[0].Allowed, "1.5 GiB") {
		t.Errorf("slot above the machine's memory: %v", problems)
	}
}
