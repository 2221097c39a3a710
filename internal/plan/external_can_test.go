package plan

import (
	"strings"
	"testing"
)

// TestExternalRefusesFaults: a fault or noise aimed at a server the user
// runs is refused at plan through the external provider's answers, where
// it used to fail only when the run reached the event.
func TestExternalRefusesFaults(t *testing.T) {
	const ext = "name: t\nworkload: {name: tpcb, duration: 30s}\ntenancy: {model: database, tenants: 2}\n" +
		"sut:\n  provider: external\n  servers: [{name: main, dsn_env: TB_PLAN_TEST_UNSET}]\n"
	for _, c := range []struct{ kind, extra, allows string }{
		{"restart", "", "not tenantbench's to restart"},
		{"crash", "", "not tenantbench's to restart"},
		{"freeze", ", duration: 2s", "processes tenantbench does not own"},
		{"cpu", ", duration: 2s, params: {load: 50}", "no cgroup tenantbench made"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			src := ext + "interference: [{kind: " + c.kind + ", at: 5s, target: main" + c.extra + "}]\n"
			_, problems := buildSrc(t, src, big)
			found := false
			for _, p := range problems {
				if strings.HasPrefix(p.Path, "interference[0]") && strings.Contains(p.Allowed, c.allows) {
					found = true
				}
			}
			if !found {
				t.Errorf("no refusal of %s at interference[0] saying %q; got:\n%v", c.kind, c.allows, problems)
			}
		})
	}
	src := ext + "interference: [{kind: kill-backends, at: 5s, target: t01}]\n"
	_, problems := buildSrc(t, src, big)
	for _, p := range problems {
		if strings.HasPrefix(p.Path, "interference") {
			t.Errorf("kill-backends refused: %v", p)
		}
	}
}
