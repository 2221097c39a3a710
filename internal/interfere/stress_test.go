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
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

type bookLedger struct {
	mu             sync.Mutex
	started, ended []Process
}

func (l *bookLedger) Started(p Process) { l.mu.Lock(); l.started = append(l.started, p); l.mu.Unlock() }
func (l *bookLedger) Ended(p Process)   { l.mu.Lock(); l.ended = append(l.ended, p); l.mu.Unlock() }

// stressLeft lists the stress-ng processes running now that the runner
// started for this test: those in the process groups the ledger saw
// start (runStress makes stress-ng lead a group of its own, which its
// workers, even orphaned, stay in). Other packages' tests running beside
// it start stress-ng too.
func stressLeft(t *testing.T, led *bookLedger) []int {
	t.Helper()
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	led.mu.Lock()
	ours := map[int]bool{}
	for _, p := range led.started {
		ours[p.Pid] = true
	}
	led.mu.Unlock()
	var out []int
	for _, p := range procs {
		if c, err := p.Comm(); err == nil && strings.HasPrefix(c, "stress-ng") {
			if st, err := p.Stat(); err == nil && st.State != "Z" && ours[st.PGRP] {
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
	events, problems := parse(t, `[{kind: cpu, at: 0s, duration: 3s, params: {load: 30}}]`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	led := &bookLedger{}
	env := &Env{WorkDir: t.TempDir(), Ledger: led}
	r := Start(context.Background(), events, 10*time.Second, env, time.Now())
	time.Sleep(1500 * time.Millisecond)
	if len(stressLeft(t, led)) == 0 {
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
	if left := stressLeft(t, led); len(left) > 0 {
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
	led := &bookLedger{}
	r := Start(ctx, events, 120*time.Second, &Env{WorkDir: t.TempDir(), Ledger: led}, time.Now())
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
	if left := stressLeft(t, led); len(left) > 0 {
		t.Errorf("stress-ng processes %v left", left)
	}
}

// TestSharedNoise puts real stress-ng inside a real server's cgroup (share:
// true), limited to 1 CPU: its processes are in the server's group while
// it runs, its load is measured from its processes and is of the server's
// 1 CPU; an io noise writes beside it on the run's filesystem; nothing of
// either is left.
func TestSharedNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if _, err := exec.LookPath(stressNG); err != nil {
		t.Skip("stress-ng is not installed (Debian package stress-ng)")
	}
	inst := pgtest.Start(t, pgtest.Name("noisy"), pgtest.Resources(1, 0))
	cg, mode := provider.CgroupOf(inst)
	if cg == "" {
		t.Skip("no cgroups here: share: true has no group to join")
	}
	events, problems := parse(t, `
- {kind: cpu, at: 0s, duration: 3s, target: noisy, params: {load: 50, share: true}}
- {kind: io, at: 0s, duration: 2s, target: noisy, params: {bytes: 1MiB}}
`)
	if problems != nil {
		t.Fatal(problemsText(problems))
	}
	work := pgtest.TempDir(t)
	led := &bookLedger{}
	env := &Env{Servers: map[string]*provider.Instance{"noisy": inst}, WorkDir: work, Ledger: led}
	r := Start(context.Background(), events, 10*time.Second, env, time.Now())
	time.Sleep(1500 * time.Millisecond)
	procs, err := cgroup.Detect().Open(cg).Procs()
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for _, pid := range stressLeft(t, led) {
		for _, p := range procs {
			if p == pid {
				inside++
			}
		}
	}
	if inside < 2 { // the cpu noise: its parent and a worker at least
		t.Errorf("%d stress-ng processes in the server's cgroup %s (%s), want the cpu noise's", inside, cg, mode)
	}
	time.Sleep(2 * time.Second) // past the noises' ends
	recs := r.Stop()
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, rec := range recs {
		t.Logf("%s: %s", rec.Kind, rec.Observed.Note)
		if rec.Err != nil {
			t.Errorf("%s: %v", rec.Kind, rec.Err)
		}
	}
	for _, rec := range recs {
		if rec.Kind == "cpu" {
			if !strings.Contains(rec.Observed.Note, "of 1 CPUs") || rec.Observed.Achieved <= 0 || rec.Observed.Achieved > 70 {
				t.Errorf("cpu noise of the server's 1 CPU: achieved %.1f %% (%s)", rec.Observed.Achieved, rec.Observed.Note)
			}
		}
	}
	if left := stressLeft(t, led); len(left) > 0 {
		t.Errorf("stress-ng processes %v left", left)
	}
}
