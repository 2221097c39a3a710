package providers

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
)

func TestBuiltin(t *testing.T) {
	r := Builtin()
	if got := strings.Join(r.Names(), ","); got != "local" {
		t.Errorf("providers %s, want local", got)
	}
	if _, err := r.New("kubernetes"); err == nil || !strings.Contains(err.Error(), "known: local") {
		t.Errorf("New(kubernetes): %v, want the known providers", err)
	}
	if r["local"].StopRecord == nil {
		t.Error("local keeps servers but cannot stop them")
	}
	p, err := r.New("local")
	if err != nil || p == nil {
		t.Fatalf("New(local) = %v, %v", p, err)
	}
}

// TestSpecAgrees: every registered provider and engine is one a spec may
// name, and nothing else is: validation and dispatch stay in step.
func TestSpecAgrees(t *testing.T) {
	problemAt := func(key, value string) bool {
		_, problems := spec.Parse([]byte("name: x\nsut: {" + key + ": " + value + "}\nworkload: {name: tpcb}\n"))
		for _, p := range problems {
			if p.Path == "sut."+key {
				return true
			}
		}
		return false
	}
	for _, name := range Builtin().Names() {
		if problemAt("provider", name) {
			t.Errorf("spec refuses provider %s, which is registered", name)
		}
	}
	for _, name := range engine.Builtin().Names() {
		if problemAt("engine", name) {
			t.Errorf("spec refuses engine %s, which is registered", name)
		}
	}
	for _, name := range []string{"external", "kubernetes"} {
		if _, ok := Builtin()[name]; !ok && !problemAt("provider", name) {
			t.Errorf("spec accepts provider %s, which is not registered", name)
		}
	}
	if _, ok := engine.Builtin()["mariadb"]; !ok && !problemAt("engine", "mariadb") {
		t.Error("spec accepts engine mariadb, which is not registered")
	}
}
