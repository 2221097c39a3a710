package providers

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/provider"
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
