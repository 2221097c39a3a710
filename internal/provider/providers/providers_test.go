package providers

import (
	"strings"
	"testing"
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
