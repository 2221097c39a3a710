package providers

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/provider"
)

func TestBuiltin(t *testing.T) {
	r := Builtin()
	if got := strings.Join(r.Names(), ","); got != "external,kubernetes,local" {
		t.Errorf("providers %s, want external,kubernetes,local", got)
	}
	if _, err := r.New("nomad"); err == nil || !strings.Contains(err.Error(), "known: external, kubernetes, local") {
		t.Errorf("New(nomad): %v, want the known providers", err)
	}
	if f := r["kubernetes"]; f.StopRecord == nil || !f.Cluster || f.CheckCluster == nil || f.Servers {
		t.Error("kubernetes runs servers in the cluster sut.kubernetes names and deletes them by label")
	}
	if r["local"].StopRecord == nil {
		t.Error("local keeps servers but cannot stop them")
	}
	if f := r["external"]; f.StopRecord == nil || !f.Servers || f.CheckServer == nil {
		t.Error("external places instances on named servers and drops what it made there")
	}
	p, err := r.New("local")
	if err != nil || p == nil {
		t.Fatalf("New(local) = %v, %v", p, err)
	}
}

// TestClonesDeclared: what a factory declares before any provider exists
// is what its providers can do.
func TestClonesDeclared(t *testing.T) {
	for _, name := range Builtin().Names() {
		f := Builtin()[name]
		p, err := f.New()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.(provider.Cloner); ok != f.Clones {
			t.Errorf("provider %s: Clones %v, but a Cloner: %v", name, f.Clones, ok)
		}
	}
}
