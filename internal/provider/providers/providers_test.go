package providers

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/provider"
)

func TestBuiltin(t *testing.T) {
	r := Builtin()
	if got := strings.Join(r.Names(), ","); got != "external,local" {
		t.Errorf("providers %s, want external,local", got)
	}
	if _, err := r.New("kubernetes"); err == nil || !strings.Contains(err.Error(), "known: external, local") {
		t.Errorf("New(kubernetes): %v, want the known providers", err)
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
