package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/k8stest"
	"github.com/tenantbench/tenantbench/internal/run"
)

// TestModelsExample: examples/tpcc-models-k8s.yaml as shipped plans
// against a real cluster (its kubeconfig named by KUBECONFIG, namespace
// default), and a shortened copy runs: two tenants in each of its three
// models, one repetition of 5 s, in a namespace of the test's and with
// the test cluster's image, everything else as shipped (its settings,
// its 2 CPUs and 8 GiB divided among the pods, provision clone, the
// statements interaction, the consistency check, the interleaved order
// and its probe). Each run commits for both tenants and checks them.
func TestModelsExample(t *testing.T) {
	c := k8stest.Get(t)
	const ns = "tb-e2e-example"
	cs := namespace(t, c, ns)
	bin := tenantbench(t)
	tmp := t.TempDir()
	example, err := filepath.Abs("../../../../examples/tpcc-models-k8s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, "KUBECONFIG="+c.Kubeconfig, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	if b, err := command(bin, env, "plan", example).CombinedOutput(); err != nil {
		t.Fatalf("plan %s: %v\n%s", example, err, b)
	}

	raw, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := yaml.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	s["repeat"] = 1
	s["tenancy"].(map[string]any)["tenants"] = []int{2}
	w := s["workload"].(map[string]any)
	w["warmup"], w["duration"] = "0s", "5s"
	k := s["sut"].(map[string]any)["kubernetes"].(map[string]any)
	k["namespace"], k["image"] = ns, c.PGImage
	short, err := yaml.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(tmp, "short.yaml")
	if err := os.WriteFile(specPath, short, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "results")
	b, err := command(bin, env, "run", specPath, "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	models := map[string]bool{}
	for _, r := range rows {
		models[r["model"]] = true
		tps, _ := strconv.ParseFloat(r["throughput_tps"], 64)
		if r["status"] != "ok" || tps <= 0 || r["interaction"] != "statements" {
			t.Errorf("run %s (%s): status %s, tps %s, interaction %q, error %s", r["run_id"], r["model"], r["status"], r["throughput_tps"], r["interaction"], r["error"])
		}
		t.Logf("run %s: %s model, interaction %s, %s tps", r["run_id"], r["model"], r["interaction"], r["throughput_tps"])
		committed, checked := committedTenants(t, out, r["run_id"]), checkedTenants(t, out, r["run_id"])
		if len(committed) != 2 || len(checked) != 2 {
			t.Errorf("run %s (%s): tenants that committed %v, whose check ran %v: want t01 and t02", r["run_id"], r["model"], committed, checked)
		}
	}
	if len(rows) != 3 || len(models) != 3 {
		t.Errorf("results.csv: %d runs, models %v: want one run of each of schema, database and instance\n%s", len(rows), models, b)
	}
	if left := anyRun(t, cs, ns); len(left) > 0 {
		t.Errorf("left in namespace %s: %v", ns, left)
	}
}
