package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/netns"
)

// asRoot is a machine that holds every plan of these tests, as root.
var asRoot = func() Machine { m := big; m.Root = true; return m }()

// TestPlacementsInPlan: each run of sut.placement has its placement's
// name, transport, pooler and link (with the emulator chosen here) in
// plan.json, the servers of the pooled placement room for its pools; the
// plan has no pooler or link of its own then, and its table lists each
// placement.
func TestPlacementsInPlan(t *testing.T) {
	pgbouncerVersion(t)
	if why := netns.Usable(context.Background(), netns.Link{}); why != "" {
		t.Skip("sut.network: " + why)
	}
	p, problems := buildSrc(t, `name: t
sut:
  placement:
    - {name: local, transport: unix}
    - {name: remote, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}, network: {}}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, clients: [1, 2]}
`, asRoot)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if p.Pooler != nil || p.Network != nil || strings.Join(p.Dimensions.Placements, ",") != "local,remote" {
		t.Errorf("plan: pooler %+v, network %+v, placements %v", p.Pooler, p.Network, p.Dimensions.Placements)
	}
	if len(p.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(p.Runs))
	}
	for _, r := range p.Runs {
		local := r.Placement == "local"
		switch {
		case local && (r.Transport != "unix" || r.Pooler != nil || r.Network != nil):
			t.Errorf("run %s (local): transport %s, pooler %+v, network %+v", r.ID, r.Transport, r.Pooler, r.Network)
		case !local && (r.Placement != "remote" || r.Transport != "tcp" || r.Pooler == nil || r.Pooler.Mode != "transaction" ||
			r.Network == nil || !r.Network.Plain()):
			t.Errorf("run %s (%s): transport %s, pooler %+v, network %+v", r.ID, r.Placement, r.Transport, r.Pooler, r.Network)
		}
	}
	// The pooler's server connections count on the pooled runs' servers
	// only.
	if a, b := p.Runs[0].Instances[0].MaxConnections, p.Runs[1].Instances[0].MaxConnections; b != a+3 {
		t.Errorf("max_connections %d (local), %d (remote), want 3 more behind the pooler", a, b)
	}
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, File))
	for _, want := range []string{`"placement": "remote"`, `"placements": [`, `"mode": "transaction"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plan.json lacks %s", want)
		}
	}
	back, err := Read(dir)
	if err != nil || back.Runs[0].Pooler != nil || back.Runs[1].Pooler == nil || back.Runs[1].Network == nil {
		t.Errorf("plan.json read back: %v %+v", err, back.Runs)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  local: over unix; direct to the servers\n",
		"  remote: over tcp; through pgbouncer in front of every server (transaction mode, pool of 3 server connections per tenant); the servers in a network namespace of each run, behind a link of plain"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
}

// TestPlacementPlanProblems: every check of sut.transport, sut.pooler
// and sut.network applies to each placement, named at its path and line:
// a unix socket with a network, a network where it cannot run (not
// root), a provider that cannot have it, a pooler kind or mode, and a
// pool smaller than a placement's clients in session mode.
func TestPlacementPlanProblems(t *testing.T) {
	pgbouncerVersion(t)
	for _, c := range []struct {
		src, want string
		m         Machine
	}{
		{"  placement:\n    - {name: a}\n    - {name: b, transport: unix, network: {}}\n",
			"sut.placement[1].transport (line 5) unix: must be tcp with sut.placement[1].network", asRoot},
		{"  placement:\n    - {name: a}\n    - {name: b, network: {}}\n",
			"sut.placement[1].network (line 5) plain (no emulator): cannot run here: needs root", big},
		{"  placement:\n    - {name: a, network: {delay: 1ms, jitter: 2ms}}\n",
			"sut.placement[0].network.jitter (line 4) 2ms: must be at most the delay (1ms)", asRoot},
		{"  provider: external\n  servers: [{name: a, dsn_env: TB_NO_SUCH_DSN}]\n  placement:\n    - {name: a, network: {delay: 1ms}}\n",
			"sut.placement[0].network (line 6) delay 1ms each way: provider external cannot place servers behind an emulated link", asRoot},
		{"  placement:\n    - {name: a}\n    - {name: b, pooler: {kind: pgbouncr}}\n",
			"sut.placement[1].pooler.kind (line 5) pgbouncr: must be one of pgbouncer; did you mean pgbouncer?", asRoot},
		{"  placement:\n    - {name: a, pooler: {kind: pgbouncer, mode: transacton}}\n",
			"sut.placement[0].pooler.mode (line 4) transacton: must be one of session, transaction; did you mean transaction?", asRoot},
		{"  placement:\n    - {name: a}\n    - {name: b, pooler: {kind: pgbouncer, mode: session, pool_size: 2}}\nworkload: {name: tpcb, clients: [1, 3]}\n",
			"sut.placement[1].pooler.pool_size (line 5) 2: must be at least 3", asRoot},
	} {
		src := "name: t\nsut:\n" + c.src
		if !strings.Contains(c.src, "workload:") {
			src += "workload: {name: tpcb}\n"
		}
		_, problems := buildSrc(t, src, c.m)
		var got []string
		for _, p := range problems {
			got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
		}
		if text := strings.Join(got, "\n"); !strings.Contains(text, c.want) {
			t.Errorf("%q: no %q in:\n%s", c.src, c.want, text)
		}
	}
}

// TestReadOldPlanPooler: a plan.json written before the runs had their
// own pooler and link gives each run the plan's.
func TestReadOldPlanPooler(t *testing.T) {
	dir := t.TempDir()
	old := `{"name": "t", "pooler": {"kind": "pgbouncer", "mode": "session", "pool_size": 20},
"network": {"delay_ns": 1000000, "jitter_ns": 0, "loss_pct": 0, "rate_bit_s": 0, "emulator": "netem"},
"runs": [{"id": "001", "transport": "tcp"}]}`
	if err := os.WriteFile(filepath.Join(dir, File), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Runs[0]
	if r.Pooler == nil || r.Pooler.PoolSize != 20 || r.Network == nil || r.Network.Emulator != "netem" {
		t.Errorf("run of an old plan.json: pooler %+v, network %+v", r.Pooler, r.Network)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"pooler":{"kind":"pgbouncer"`) {
		t.Errorf("run %s", b)
	}
}
