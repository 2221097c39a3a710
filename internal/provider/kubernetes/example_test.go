package kubernetes

import (
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestModelsExample: examples/tpcc-models-k8s.yaml is tpcc-models.yaml on
// Kubernetes: the same workload, tenancy, settings, resources and order,
// so that `tenantbench compare` sets their points side by side.
func TestModelsExample(t *testing.T) {
	local, problems := spec.Load("../../../examples/tpcc-models.yaml")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	k8s, problems := spec.Load("../../../examples/tpcc-models-k8s.yaml")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if k8s.SUT.Provider != Name || k8s.SUT.Kubernetes == nil {
		t.Fatalf("provider %q, sut.kubernetes %+v", k8s.SUT.Provider, k8s.SUT.Kubernetes)
	}
	// The options are a YAML node (their lines differ): compared decoded.
	var lopts, kopts any
	if err := local.Workload.Options.Decode(&lopts); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Workload.Options.Decode(&kopts); err != nil {
		t.Fatal(err)
	}
	lw, kw := local.Workload, k8s.Workload
	lw.Options, kw.Options = yaml.Node{}, yaml.Node{}
	for what, pair := range map[string][2]any{
		"workload":         {lw, kw},
		"workload.options": {lopts, kopts},
		"tenancy":          {local.Tenancy, k8s.Tenancy},
		"sut.settings":     {local.SUT.Settings, k8s.SUT.Settings},
		"sut.resources":    {local.SUT.Resources, k8s.SUT.Resources},
		"repeat":           {local.Repeat, k8s.Repeat},
		"order":            {local.Order, k8s.Order},
		"seed":             {local.Seed, k8s.Seed},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differs:\n%+v\n%+v", what, pair[0], pair[1])
		}
	}
}
