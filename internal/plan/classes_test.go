package plan

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const classesSrc = `name: t
tenancy:
  model: [database, instance]
  tenants: 6
  classes:
    - {name: small, count: 4, scale: 1, clients: 1}
    - {name: large, count: 2, scale: 3, clients: 4, sla: {p95: 20ms}}
workload: {name: tpcb, clients: 2}
`

// TestClassesResolved: the plan gives every tenant its class, scale and
// connections, sizes each server's max_connections by the classes of the
// tenants on it, keeps them in plan.json, shows them in the table and
// gives each tenant its class's workload to build.
func TestClassesResolved(t *testing.T) {
	p := mustBuild(t, classesSrc)
	if len(p.Runs) != 2 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	for _, r := range p.Runs {
		var got []string
		for _, tn := range r.TenantList {
			got = append(got, tn.Class)
			small := tn.Class == "small"
			if (small && (tn.Scale != 1 || tn.Conns != 1)) || (!small && (tn.Scale != 3 || tn.Conns != 4 || tn.SLA == nil)) {
				t.Errorf("run %s: %+v", r.ID, tn)
			}
		}
		if strings.Join(got, " ") != "small small small small large large" {
			t.Errorf("run %s classes %v", r.ID, got)
		}
		reserve := r.Instances[0].MaxConnections - r.TenantList[0].Conns
		if r.Model == "database" {
			reserve = r.Instances[0].MaxConnections - (4*1 + 2*4)
		}
		if reserve <= 0 {
			t.Errorf("run %s: max_connections %d below the tenants' connections", r.ID, r.Instances[0].MaxConnections)
		}
		if r.Model == "instance" && r.Instances[5].MaxConnections != 4+reserve {
			t.Errorf("run %s: the large tenant's server has max_connections %d, want %d", r.ID, r.Instances[5].MaxConnections, 4+reserve)
		}
		tws := p.TenantWorkloads(&r)
		if len(tws) != 6 || tws[0].Scale != 1 || tws[5].Scale != 3 || tws[5].Spec.Name != "tpcb" {
			t.Errorf("run %s: tenant workloads %+v", r.ID, tws)
		}
	}
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"classes of run 001 (6 tenants):", "small: 4 tenants (t01..t04), scale 1, 1 conns",
		"large: 2 tenants (t05..t06), scale 3, 4 conns, sla p95 <= 20ms"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cs := ClassesOf(&back.Runs[0]); len(cs) != 2 || cs[1].Name != "large" || len(cs[1].Tenants) != 2 ||
		back.Runs[0].TenantList[5].SLA.P95 != p.Runs[0].TenantList[5].SLA.P95 {
		t.Errorf("plan.json classes %+v", cs)
	}
}

// TestClassProblemsAtPlan: what a class asks of the registries is
// checked at plan, at the class's path: its workload by name (with "did
// you mean"), its options as that workload reads them, a model that
// cannot hold it, and a max_connections too small for its clients.
func TestClassProblemsAtPlan(t *testing.T) {
	head := "name: t\nworkload: {name: tpcb}\ntenancy:\n  tenants: 2\n"
	for _, c := range []struct {
		name, src, path, allows string
	}{
		{"workload typo", head + "  classes: [{name: a, share: 1, workload: tpcd}]\n", "tenancy.classes[0].workload", "did you mean tpcb?"},
		{"options", head + "  classes: [{name: a, share: 1, workload: tpch, options: {bogus: 1}}]\n", "tenancy.classes[0].options.bogus", "unknown key"},
		{"streams mixed", head + "  classes: [{name: a, share: 0.5}, {name: b, share: 0.5, workload: tpch}]\n", "tenancy.classes[1].workload", "cannot be mixed"},
		{"shared tables", "name: t\nworkload: {name: tpcc}\ntenancy:\n  model: shared-table\n  tenants: 2\n" +
			"  classes: [{name: a, share: 0.5, scale: 2}, {name: b, share: 0.5}]\n", "tenancy.classes[0]", "share one workload"},
		{"model cannot hold", "name: t\nworkload: {name: tpcc}\ntenancy:\n  model: shared-table\n  tenants: 2\n" +
			"  classes: [{name: a, share: 0.5, workload: tpcb}, {name: b, share: 0.5}]\n", "tenancy.classes[0].workload", "cannot hold it"},
		{"max_connections", "name: t\nworkload: {name: tpcb}\nsut: {settings: {max_connections: 12}}\ntenancy:\n  tenants: 2\n" +
			"  classes: [{name: a, count: 1, clients: 1}, {name: b, count: 1, clients: 9}]\n", "sut.settings.max_connections", "needs at least"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := buildSrc(t, c.src, big)
			found := false
			for _, p := range problems {
				found = found || (p.Path == c.path && strings.Contains(p.Allowed, c.allows))
			}
			if !found {
				t.Errorf("want a problem at %s allowing %q, got:\n%v", c.path, c.allows, problems)
			}
		})
	}
}

// TestTenantSpecReadBack: a plan read back from plan.json gives each
// tenant the workload, options and scale its class gave it, as the run
// built them (check and audit rebuild the workloads from it).
func TestTenantSpecReadBack(t *testing.T) {
	p := mustBuild(t, `name: t
tenancy:
  tenants: 3
  classes:
    - {name: a, count: 1, scale: 2, options: {scripts: {select-only: 1}}}
    - {name: b, count: 1, workload: sales, scale: 0.01}
    - {name: c, count: 1}
workload: {name: tpcb, scale: 3, options: {scripts: {tpcb-like: 1}}}
`)
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &back.Runs[0]
	for _, c := range []struct {
		tenant, name string
		scale        float64
		options      string
	}{{"t01", "tpcb", 2, "select-only"}, {"t02", "sales", 0.01, ""}, {"t03", "tpcb", 3, "tpcb-like"}} {
		w, scale, err := r.TenantSpec(c.tenant)
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		if w.Options.Kind != 0 {
			b, _ := yaml.Marshal(&w.Options)
			text = string(b)
		}
		if w.Name != c.name || scale != c.scale || (c.options == "") != (text == "") || !strings.Contains(text, c.options) {
			t.Errorf("%s: %s at %v with options %q; want %s at %v with %q", c.tenant, w.Name, scale, text, c.name, c.scale, c.options)
		}
		fresh := p.TenantWorkloads(&p.Runs[0])
		i := int(c.tenant[2] - '1')
		if fresh[i].Spec.Name != w.Name || fresh[i].Scale != scale {
			t.Errorf("%s: read back %s at %v, built %s at %v", c.tenant, w.Name, scale, fresh[i].Spec.Name, fresh[i].Scale)
		}
	}
}
