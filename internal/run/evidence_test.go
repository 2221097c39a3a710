package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

const cutSpec = `name: cut
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, warmup: 1s, duration: 20s}
`

// wholeRun prepares the first run of yaml to be done whole (ex.do), with a
// results directory, and calls during, in its own goroutine, once the
// workload phase has been under way for after (about: the phase starts by
// connecting every client).
func wholeRun(t *testing.T, yaml string, after time.Duration, during func(ex *execution)) *execution {
	t.Helper()
	p, reg, prov := testPlan(t, yaml)
	out, err := results.Create(filepath.Join(t.TempDir(), "results"), nil)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	log := &phaseLog{t: t, phase: "workload", started: started}
	ex := &execution{opts: Options{Log: log, Provider: prov, Workloads: reg, Models: tenancy.Builtin(),
		WorkRoot: pgtest.TempDir(t), Out: out}, plan: p, spec: p.Spec, run: &p.Runs[0]}
	go func() {
		select {
		case <-started:
		case <-time.After(2 * time.Minute):
			return
		}
		time.Sleep(after)
		during(ex)
	}()
	return ex
}

// phaseLog sends a run's log lines to the test's and closes started when
// the run logs that phase starts: the run's goroutine writes that line
// after the provisioning has set the execution's instances.
type phaseLog struct {
	t       *testing.T
	phase   string
	started chan struct{}
	once    sync.Once
}

func (l *phaseLog) Write(b []byte) (int, error) {
	if strings.HasSuffix(strings.TrimRight(string(b), "\n"), "] "+l.phase) {
		l.once.Do(func() { close(l.started) })
	}
	return testLog{l.t}.Write(b)
}

// workloadFailedForAll checks the workload phase is failed for every tenant.
func workloadFailedForAll(t *testing.T, sum *results.Summary) {
	t.Helper()
	n := 0
	for _, p := range sum.Phases {
		if p.Phase == "workload" {
			n++
			if p.Status != "failed" || p.Error == "" {
				t.Errorf("tenant %s: workload %s (%q) in a run that failed in it", p.Tenant, p.Status, p.Error)
			}
		}
	}
	if n != sum.Tenants {
		t.Errorf("%d workload rows for %d tenants", n, sum.Tenants)
	}
}

// TestInterruptedRate: a run of 1 s warmup and 20 s cut 4 s into its
// workload reports its rates over the 3 s it measured, not over 20 s.
func TestInterruptedRate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := wholeRun(t, cutSpec, 4*time.Second, func(*execution) { cancel() })
	sum := ex.do(ctx)
	if sum.Status != results.StatusInterrupted || !strings.Contains(sum.Error, "interrupted") {
		t.Fatalf("status %s: %s", sum.Status, sum.Error)
	}
	var ran float64
	for _, p := range sum.Phases {
		if p.Phase == "workload" {
			ran = p.Seconds() - sum.Warmup
		}
	}
	t.Logf("workload ran %.2f s after its warmup, measured_s %.2f", ran, sum.Measured)
	if ran <= 1 || ran > 10 || math.Abs(sum.Measured-ran) > 0.5 {
		t.Fatalf("measured %.2f s, the workload ran %.2f s after its warmup", sum.Measured, ran)
	}
	for _, tt := range sum.Tenant {
		want := float64(tt.Committed) / ran
		t.Logf("%s: %d committed, %.1f tps; committed / time run %.1f", tt.Tenant, tt.Committed, tt.TPS, want)
		if tt.Committed == 0 || math.Abs(tt.TPS-want) > 0.15*want {
			t.Errorf("%s: %.1f tps, %d committed in %.2f s: want %.1f", tt.Tenant, tt.TPS, tt.Committed, ran, want)
		}
	}
	workloadFailedForAll(t, sum)
}

// TestServerKilledLog: a server killed during the workload fails the
// run, whose error names the copy of its log, kept in runs/<id>/ after
// teardown removed the work directory; the workload phase is failed for
// every tenant, those of servers still up included.
func TestServerKilledLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	var killed string
	spec := strings.Replace(cutSpec, "model: database", "model: instance", 1)
	spec = strings.Replace(spec, "duration: 20s", "duration: 5s", 1)
	ex := wholeRun(t, spec, 2*time.Second, func(ex *execution) {
		inst := ex.instances[0]
		killed = inst.Name
		k, ok := provider.As[provider.Killer](inst)
		if !ok {
			t.Error("the local provider's instance cannot be killed")
			return
		}
		if err := k.Kill(); err != nil {
			t.Error(err)
		}
	})
	sum := ex.do(context.Background())
	copyPath := filepath.Join(ex.opts.Out.Path, "runs", sum.RunID, "server-"+killed+".log")
	if sum.Status != results.StatusFailed || !strings.Contains(sum.Error, "exited during the run (its log: "+copyPath+")") {
		t.Fatalf("status %s, error %q: want the exit with its log's copy %s", sum.Status, sum.Error, copyPath)
	}
	b, err := os.ReadFile(copyPath)
	if err != nil || !strings.Contains(string(b), "ready to accept connections") {
		t.Errorf("the copy of the log: %v\n%s", err, b)
	}
	if _, err := os.Stat(ex.workDir); !os.IsNotExist(err) {
		t.Errorf("the work directory %s is still there (%v)", ex.workDir, err)
	}
	if strings.Contains(sum.Error, ex.workDir) {
		t.Errorf("the error names the removed work directory: %s", sum.Error)
	}
	workloadFailedForAll(t, sum)
}

// TestStartFailedLog: a server that the plan passed but that refuses to
// start (here a value it rejects, set behind the plan's back) fails the
// run with its log kept in runs/<id>/, and the error names that copy.
func TestStartFailedLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ex := wholeRun(t, cutSpec, 0, func(*execution) {})
	ex.run.Settings = map[string]string{"work_mem": "-1"}
	sum := ex.do(context.Background())
	copyPath := filepath.Join(ex.opts.Out.Path, "runs", sum.RunID, "server-shared.log")
	if sum.Status != results.StatusFailed || !strings.Contains(sum.Error, "its log: "+copyPath) {
		t.Fatalf("status %s, error %q: want the failed start with its log's copy %s", sum.Status, sum.Error, copyPath)
	}
	if b, err := os.ReadFile(copyPath); err != nil || !strings.Contains(string(b), "work_mem") {
		t.Errorf("the copy of the log: %v\n%s", err, b)
	}
	if _, err := os.Stat(ex.workDir); !os.IsNotExist(err) {
		t.Errorf("the work directory %s is still there (%v)", ex.workDir, err)
	}
}
