package main

import (
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

// TestSides: every engine tenantbench has is measured against go-tpc,
// with a default interaction that engine has a tpcc form of, and go-tpc
// flags that name a driver.
func TestSides(t *testing.T) {
	for name, e := range engine.Builtin() {
		sd, err := sideOf(name)
		if err != nil {
			t.Errorf("engine %s: %v", name, err)
			continue
		}
		o := tpcc.DefaultOptions()
		o.Interaction = sd.interaction
		w, err := tpcc.New(1, o)
		if err != nil {
			t.Fatal(err)
		}
		if eo, ok := w.(workload.EngineOptions); ok {
			if key, value, allowed := eo.CheckEngine(e); key != "" {
				t.Errorf("engine %s: default %s %s refused: %s", name, key, value, allowed)
			}
		}
		if args := sd.gotpc(tenancy.Placement{Password: "x"}); len(args) < 2 || args[0] != "-d" {
			t.Errorf("engine %s: go-tpc flags %q name no driver", name, args)
		}
	}
	if _, err := sideOf("oracle"); err == nil {
		t.Error("an engine without a side: want an error")
	}
}
