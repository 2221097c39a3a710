package interfere

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

type bookLedger struct {
	mu             sync.Mutex
	started, ended []Process
}

func (l *bookLedger) Started(p Process) { l.mu.Lock(); l.started = append(l.started, p); l.mu.Unlock() }
func (l *bookLedger) Ended(p Process)   { l.mu.Lock(); l.ended = append(l.ended, p); l.mu.Unlock() }

// stressLeft lists the stress-ng processes running now.
func stressLeft(t *testing.T) []int {
	t.Helper()
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range procs {
		if c, err := p.Comm(); err == nil && strings.HasPrefix(c, "stress-ng") {
			if st, err := p.Stat(); err == nil && st.State != "Z" {
				out = append(out, p.PID)
			}
		}
	}
	return out
}

// TestCPUNoise runs real stress-ng at 30 % of the host's CPUs for 3 s:
// the achieved load is measured from its own cgroup (or its processes),
// the ledger saw it start and end, and nothing of it is left: no
// process, no cgroup.
func TestCPUNoise(t *testing.T) {
	if _, err := exec.LookPath(stressNG); err != nil {
		t.Skip("stress-ng is not installed (Debian package stress-ng)")
	}
	if left := stressLeft(t); len(left) > 0 {
		t.Skipf("stress-ng already runs on this machine (%v): its processes would be counted", left)
	}
	events, problems := parse(t, `[{kind: cpu, at: 0s, duration: 3s, params: {load: 30}}]`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	led := &bookLedger{}
	env := &Env{WorkDir: t.TempDir(), Ledger: led}
	r := Start(context.Background(), events, 10*time.Second, env, time.Now())
	time.Sleep(1500 * time.Millisecond)
	if len(stressLeft(t)) == 0 {
		t.Error("no stress-ng runs during the noise")
	}
	time.Sleep(2500 * time.Millisecond)
	recs := r.Stop()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	rec := recs[0]
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	t.Logf("observed: %s", rec.Observed.Note)
	if rec.Observed.Requested != 30 {
		t.Errorf("requested %v, want 30", rec.Observed.Requested)
	}
	// A shared machine may starve it; it must not exceed what was asked
	// by much, nor be nothing.
	if a := rec.Observed.Achieved; a < 5 || a > 40 {
		t.Errorf("achieved %.1f %% of the host's CPUs for 30 %% requested", a)
	}
	if d := rec.End.Sub(rec.Start); d < 3*time.Second || d > 6*time.Second {
		t.Errorf("the noise lasted %v, want 3 s", d)
	}
	if len(led.started) != 1 || len(led.ended) != 1 || led.started[0].Pid != led.ended[0].Pid {
		t.Errorf("ledger: started %v, ended %v", led.started, led.ended)
	}
	if left := stressLeft(t); len(left) > 0 {
		t.Errorf("stress-ng processes %v left", left)
	}
	if cg := led.started[0].Cgroup; cg != "" {
		for _, d := range cgroup.Detect().Open(cg).Dirs() {
			if _, err := exec.Command("test", "-e", d).CombinedOutput(); err == nil {
				t.Errorf("cgroup directory %s left", d)
			}
		}
	}
}

// TestNoiseStopsEarly: a phase cut short (Ctrl-C) ends a long noise at
// once, leaving nothing.
func TestNoiseStopsEarly(t *testing.T) {
	if _, err := exec.LookPath(stressNG); err != nil {
		t.Skip("stress-ng is not installed (Debian package stress-ng)")
	}
	events, problems := parse(t, `[{kind: memory, at: 0s, duration: 60s, params: {bytes: 32MiB}}]`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := Start(ctx, events, 120*time.Second, &Env{WorkDir: t.TempDir()}, time.Now())
	time.Sleep(time.Second)
	cancel()
	begin := time.Now()
	recs := r.Stop()
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("stopping took %v", d)
	}
	if len(recs) != 1 || recs[0].Err != nil {
		t.Fatalf("records %+v", recs)
	}
	if left := stressLeft(t); len(left) > 0 {
		t.Errorf("stress-ng processes %v left", left)
	}
}
