package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// TestFaultsDuringWorkload restarts, crashes, freezes a real server and
// kills a tenant's sessions during a real TPC-C workload: the clients
// reconnect and go on (no failed run), every event is in events.csv's
// rows with the tenants' service resumed (F) measured from their commits,
// R from the real series, failures counted by class, and TPC-C's
// consistency check passes after the crash (recovery from the WAL).
func TestFaultsDuringWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads TPC-C")
	}
	ex := newExecution(t, `name: t
tenancy: {model: schema, tenants: 2}
workload: {name: tpcc, scale: 1, clients: 2, duration: 24s}
interference:
  - {kind: restart, at: 5s, target: shared}
  - {kind: crash, at: 11s, target: t01}
  - {kind: kill-backends, at: 16s, target: t02}
  - {kind: freeze, at: 19s, duration: 1500ms, target: shared}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload")
	if err := ex.healthAfterWorkload(); err != nil {
		t.Errorf("faults asked for failed the run: %v", err)
	}
	ex.steps(t, "check")
	if len(ex.events) != 4 {
		t.Fatalf("%d events: %+v", len(ex.events), ex.events)
	}
	obs := ex.observations(time.Now(), nil)
	sum := results.Summarize(obs)
	per := map[string][]float64{}
	for _, tn := range []string{"t01", "t02"} {
		per[tn] = perTenant(obs.Workload.Series, tn)
	}
	for _, ev := range sum.Events {
		t.Logf("%s %s at %.2f s: down %v ready %v resumed %v F %v R %v; %s %s", ev.Kind, ev.Target, ev.AtS,
			show(ev.DownS), show(ev.ReadyS), show(ev.ResumedS), show(ev.FS), show(ev.RS), ev.Observed, ev.Error)
		if ev.Error != "" {
			t.Errorf("%s: %s", ev.Kind, ev.Error)
		}
		if !ev.Fault || ev.ResumedS == nil || ev.FS == nil || *ev.FS <= 0 || *ev.FS > 10 {
			t.Errorf("%s: service resumed %v, F %v: want a time after the injection", ev.Kind, show(ev.ResumedS), show(ev.FS))
			continue
		}
		for _, tn := range ev.Tenants {
			s := per[tn]
			at := int(ev.AtS)
			if at < 1 || at+3 >= len(s) || s[at-1] == 0 || sumOf(s[int(*ev.ResumedS)+1:]) == 0 {
				t.Errorf("%s: tenant %s did not commit both before and after it: %v", ev.Kind, tn, s)
			}
		}
	}
	if want := []string{"restart", "crash", "kill-backends", "freeze"}; len(sum.Events) == 4 {
		for i, ev := range sum.Events {
			if ev.Kind != want[i] {
				t.Errorf("event %d is %s, want %s", i, ev.Kind, want[i])
			}
		}
		if got := sum.Events[2].Tenants; len(got) != 1 || got[0] != "t02" {
			t.Errorf("kill-backends of t02 affected %v", got)
		}
		if got := sum.Events[0].Tenants; len(got) != 2 {
			t.Errorf("a restart of the shared server affected %v", got)
		}
	}
	if sum.Provider.FScoreS == nil {
		t.Error("no F-Score")
	}
	if sum.Provider.RScoreS == nil {
		t.Error("no R-Score: throughput never came back after any fault")
	}
	if sum.Provider.HostIdlePct == nil {
		t.Error("no host CPU idle")
	}
	var failed int64
	for _, tr := range obs.Workload.Tenants {
		failed += tr.All.FailedTotal()
	}
	if failed == 0 {
		t.Error("no failed transaction counted across a restart and a crash")
	}
	// The server answers as before (same endpoint) once it is over.
	c := connectTenant(t, ex.placements[0])
	if err := c.Ping(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestRestartAtPhaseEnd restarts a real server 50 ms before the end of
// the workload phase: the restart is still under way when the phase
// ends, and it runs to its end rather than being cut there, so the
// server answers afterwards, the consistency check passes and the event
// has no error.
func TestRestartAtPhaseEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ex := newExecution(t, `name: t
tenancy: {model: schema, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 3s}
interference:
  - {kind: restart, at: 2950ms, target: shared}
`)
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload")
	if len(ex.events) != 1 {
		t.Fatalf("%d events: %+v", len(ex.events), ex.events)
	}
	ev := ex.events[0]
	t.Logf("restart at %.3f s, ended %.3f s: %s %s", ev.AtS, ev.EndS, ev.Observed, ev.Error)
	if ev.EndS <= 3 {
		t.Errorf("the restart ended at %.3f s, before the phase's end (3 s): nothing was under way when it ended", ev.EndS)
	}
	if ev.Error != "" {
		t.Errorf("the phase's end cut the restart: %s", ev.Error)
	}
	c := connectTenant(t, ex.placements[0])
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("the server does not answer after the phase: %v", err)
	}
	ex.steps(t, "check")
}

func perTenant(series []results.SecondRow, tenant string) []float64 {
	var out []float64
	for _, r := range series {
		if r.Tenant != tenant || r.Txn != "all" {
			continue
		}
		for int64(len(out)) <= r.Second {
			out = append(out, 0)
		}
		out[r.Second] += float64(r.Committed)
	}
	return out
}

func sumOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func show(f *float64) any {
	if f == nil {
		return "-"
	}
	return *f
}

// TestFailFastStopsAtFault restarts a real server during a real tpcb
// workload with --fail-fast: the workload phase stops at the first failed
// attempt the restart caused, long before its planned end, and fails.
func TestFailFastStopsAtFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ex := newExecution(t, `name: t
tenancy: {model: schema, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 2, duration: 20s}
interference:
  - {kind: restart, at: 2s, target: shared}
`)
	ex.opts.FailFast = true
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	start := time.Now()
	err := ex.workload(context.Background())
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "first failed attempt") {
		t.Fatalf("workload with --fail-fast and a restart: %v, want it stopped at the first failed attempt", err)
	}
	t.Logf("stopped after %.1f s: %v", took.Seconds(), err)
	if took > 12*time.Second {
		t.Errorf("the phase ran %.1f s of its 20 s: not stopped at the first failure", took.Seconds())
	}
	if ex.result == nil || ex.result.Result.Duration >= 20*time.Second {
		t.Errorf("the result measured the whole phase: %+v", ex.result)
	}
	if len(ex.events) != 1 || ex.events[0].Kind != "restart" {
		t.Errorf("events %+v, want the restart", ex.events)
	}
}

// TestFailFastStopsExperiment: an experiment of two runs (a list-valued
// fault param) with --fail-fast stops after the first, which failed at its
// first failed attempt; its row is written, with its value of the param.
func TestFailFastStopsExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	p, reg, prov := testPlan(t, `name: ff
tenancy: {model: schema, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 2, duration: 20s}
interference:
  - {kind: restart, at: 2s, target: shared, params: {fraction: [0.9, 0.5]}}
`)
	if len(p.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(p.Runs))
	}
	out, err := results.Create(filepath.Join(pgtest.TempDir(t), "out"), p.SettingKeys)
	if err != nil {
		t.Fatal(err)
	}
	out.SetInterferenceKeys(p.InterferenceKeys)
	root := pgtest.TempDir(t)
	start := time.Now()
	o, err := Experiment(context.Background(), p, Options{Out: out, Log: testLog{t}, Provider: prov, Workloads: reg,
		Models: tenancy.Builtin(), WorkRoot: root, FailFast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("experiment %+v in %.1f s", o, time.Since(start).Seconds())
	if o.Runs != 1 || o.Failed != 1 {
		t.Errorf("outcome %+v: want one run, failed, and the experiment stopped", o)
	}
	rows, err := out.ReadResults()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Status != results.StatusFailed || !strings.Contains(rows[0].Error, "first failed attempt") ||
		rows[0].Interference["interference[0].fraction"] != "0.9" {
		t.Errorf("results.csv: %+v", rows)
	}
	if left, _ := os.ReadDir(root); len(left) > 0 {
		t.Errorf("left in the work root: %v", left)
	}
}
