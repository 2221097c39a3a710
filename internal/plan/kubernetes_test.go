package plan

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestKubernetesRefusals: what provider kubernetes cannot give is
// refused at plan, at the field that asks for it, with the value and the
// provider's reason, through its factory's answers (no cluster is needed
// for these: its own problem, the unset variable, comes beside them).
func TestKubernetesRefusals(t *testing.T) {
	const k8s = "name: t\nworkload: {name: tpcb, duration: 30s}\ntenancy: {model: database, tenants: 2}\n" +
		"sut:\n  provider: kubernetes\n  kubernetes: {kubeconfig_env: TB_PLAN_TEST_UNSET}\n"
	for _, c := range []struct {
		name, src, path, value, allows string
	}{
		{"restart", k8s + "interference: [{kind: restart, at: 5s, target: shared}]\n", "interference[0].kind", "restart",
			"needs the provider to restart or crash a server in place, and provider kubernetes cannot: a pod's server is restarted by its kubelet"},
		{"crash", k8s + "interference: [{kind: crash, at: 5s, target: t01}]\n", "interference[0].kind", "crash", "restarted by its kubelet"},
		{"freeze", k8s + "interference: [{kind: freeze, at: 5s, duration: 2s, target: shared}]\n", "interference[0].kind", "freeze",
			"needs the provider to freeze a server"},
		{"noise on a server", k8s + "interference: [{kind: cpu, at: 5s, duration: 2s, target: shared, params: {load: 50}}]\n",
			"interference[0].target", "shared", "noise aimed at a server needs the provider to run noise beside or inside a server's cgroup, and provider kubernetes cannot"},
		{"mariadb", strings.Replace(k8s, "provider: kubernetes", "provider: kubernetes\n  engine: mariadb", 1), "sut.engine", "mariadb",
			"provider kubernetes cannot run it: a pod runs the engine's official container image"},
		{"pooler", k8s + "  pooler: {kind: pgbouncer}\n", "sut.pooler", "pgbouncer", "provider kubernetes"},
		{"network", k8s + "  network: {delay: 1ms}\n", "sut.network", "", "provider kubernetes cannot place servers behind an emulated link"},
		{"storage", k8s + "  storage: {kind: tmpfs}\n", "sut.storage.kind", "tmpfs", "volume of its node that the kubelet makes"},
		{"cpu_policy", k8s + "  resources: {cpu_policy: spread}\n", "sut.resources.cpu_policy", "spread", "CPU manager"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := buildSrc(t, c.src, big)
			var p *spec.Problem
			for i := range problems {
				if problems[i].Path == c.path {
					p = &problems[i]
				}
			}
			if p == nil {
				t.Fatalf("no problem at %s; got:\n%v", c.path, problems)
			}
			if (c.value != "" && p.Value != c.value) || !strings.Contains(p.Allowed, c.allows) || p.Line == 0 {
				t.Errorf("got %q (line %d, value %q)\nwant value %q, allowed containing %q, a line", p.Error(), p.Line, p.Value, c.value, c.allows)
			}
		})
	}
	// What it can give is not refused: kill-backends is SQL, noise on the
	// host or the driver is this machine's.
	src := k8s + "interference:\n- {kind: kill-backends, at: 5s, target: t01}\n- {kind: cpu, at: 5s, duration: 2s, target: host, params: {load: 50}}\n"
	_, problems := buildSrc(t, src, big)
	for _, p := range problems {
		if strings.HasPrefix(p.Path, "interference") || p.Path == "sut.engine" {
			t.Errorf("refused: %v", p)
		}
	}
}
