package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
)

// TestProcsList: -procs takes one count or a list, 0 for tenantbench
// run's default, and refuses what GOMAXPROCS cannot be.
func TestProcsList(t *testing.T) {
	for in, want := range map[string][]variant{"1": {{n: 1}}, "0,1": {{n: 0}, {n: 1}}, "1,2": {{n: 1}, {n: 2}}, " 2 , 1g": {{n: 2}, {n: 1, goroutines: true}}} {
		got, err := procsList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("procsList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1,", "x", "-1", "g", "0g", "1gg"} {
		if got, err := procsList(in); err == nil {
			t.Errorf("procsList(%q) = %v, want an error", in, got)
		}
	}
}

// TestPeers: every engine tenantbench has is measured against a peer that
// runs select-only, and a script the peer has no form of is refused.
func TestPeers(t *testing.T) {
	for _, name := range engine.Builtin().Names() {
		pr, err := peerOf(name)
		if err != nil {
			t.Errorf("engine %s: %v", name, err)
			continue
		}
		if err := pr.has("select-only"); err != nil {
			t.Errorf("engine %s: %v", name, err)
		}
	}
	if _, err := peerOf("oracle"); err == nil || !strings.Contains(err.Error(), "mariadb, postgres") {
		t.Errorf("an engine without a peer: %v", err)
	}
	if err := peers[mariadb.Name].has("tpcb-like"); err == nil {
		t.Error("sysbench has no tpcb-like form: want an error")
	}
}
