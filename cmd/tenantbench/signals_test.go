package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/run"
)

// longSpec is a run that lasts until it is cut: two servers (instance
// per tenant), each in its own cgroup.
const longSpec = `name: cut
tenancy: {model: instance, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 10m}
progress: 1s
`

// cutRun starts `run` of longSpec below tmp, with the machine-wide
// registry in tmp/registry, and calls cut once the workload makes
// progress. It returns the command (waited for), its output before the
// cut, and its stderr.
func cutRun(t *testing.T, tmp string, cut func(cmd *exec.Cmd, stdout *os.File)) (*exec.Cmd, error, string, string) {
	t.Helper()
	return cutRunOf(t, tmp, longSpec, cut)
}

// cutRunOf is cutRun of spec.
func cutRunOf(t *testing.T, tmp, spec string, cut func(cmd *exec.Cmd, stdout *os.File)) (*exec.Cmd, error, string, string) {
	t.Helper()
	specPath := filepath.Join(tmp, "cut.yaml")
	os.WriteFile(specPath, []byte(spec), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", filepath.Join(tmp, "results"))
	cmd.Env = registryEnv(tmp)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	deadline := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	sc := bufio.NewScanner(r)
	var log strings.Builder
	cutDone := false
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "progress:") {
			cut(cmd, r)
			cutDone = true
			break
		}
	}
	if !cutDone {
		cmd.Wait()
		t.Fatalf("no progress line before the end:\n%s%s", log.String(), stderr.String())
	}
	// Drain what follows, unless the cut closed the pipe.
	go func() {
		for sc.Scan() {
		}
	}()
	err = cmd.Wait()
	r.Close()
	return cmd, err, log.String(), stderr.String()
}

func registryEnv(tmp string) []string {
	return append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
}

// assertCutRecorded: exit status 1, and results.csv has the cut run's
// row, status interrupted, its error naming want.
func assertCutRecorded(t *testing.T, tmp string, err error, want, log, stderr string) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit = %v, want status 1\n%s%s", err, log, stderr)
	}
	rows := readCSV(t, filepath.Join(tmp, "results", "results.csv"))
	if len(rows) != 1 || rows[0]["status"] != "interrupted" || !strings.Contains(rows[0]["error"], "interrupted ("+want) {
		t.Fatalf("results.csv = %v, want one run, interrupted by %s", rows, want)
	}
}

// assertAllGone: no process, cgroup, work directory, ledger or registry
// entry is left of the run in tmp.
func assertAllGone(t *testing.T, tmp string, cgroups []string) {
	t.Helper()
	assertNoLeftovers(t, tmp)
	for _, cg := range cgroups {
		if cgroupExists(cg) {
			t.Errorf("cgroup %s still exists", cg)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "results", run.LiveFile)); err == nil {
		t.Errorf("%s is left", run.LiveFile)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "registry", "*")); len(left) > 0 {
		t.Errorf("the registry still lists %v", left)
	}
}

// TestHangup: SIGHUP (a closed terminal) cuts the run as SIGINT does.
func TestHangup(t *testing.T) {
	skipIfHangupIgnored(t)
	tmp := workRoot(t)
	var cgroups []string
	_, err, log, stderr := cutRun(t, tmp, func(cmd *exec.Cmd, _ *os.File) {
		cgroups = liveCgroups(t, tmp)
		cmd.Process.Signal(syscall.SIGHUP)
	})
	assertCutRecorded(t, tmp, err, "SIGHUP", log, stderr)
	assertAllGone(t, tmp, cgroups)
}

// TestClosedPipe: the reader of the output goes away (`run | head -1`):
// tenantbench is not killed by SIGPIPE; it cuts the run, stops its servers
// and records the run.
func TestClosedPipe(t *testing.T) {
	tmp := workRoot(t)
	var cgroups []string
	_, err, log, stderr := cutRun(t, tmp, func(_ *exec.Cmd, stdout *os.File) {
		cgroups = liveCgroups(t, tmp)
		stdout.Close()
	})
	assertCutRecorded(t, tmp, err, "SIGPIPE", log, stderr)
	assertAllGone(t, tmp, cgroups)
}

// TestKilled: after a SIGKILL of tenantbench its servers die with it (a
// parent death signal), and `down DIR` or `down --all` removes what is
// left: cgroups, directories, the ledger. A run in between warns of the
// leftovers.
func TestKilled(t *testing.T) {
	for _, how := range []string{"dir", "all"} {
		t.Run(how, func(t *testing.T) {
			tmp := workRoot(t)
			out := filepath.Join(tmp, "results")
			var cgroups []string
			_, err, log, stderr := cutRun(t, tmp, func(cmd *exec.Cmd, _ *os.File) {
				cgroups = liveCgroups(t, tmp)
				cmd.Process.Signal(syscall.SIGKILL)
			})
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("exit = %v, want killed\n%s%s", err, log, stderr)
			}
			t.Cleanup(func() { exec.Command(binary, "down", out).Run() })
			// The servers end on their own, soon.
			for end := time.Now().Add(20 * time.Second); postgresBelow(tmp) && time.Now().Before(end); {
				time.Sleep(100 * time.Millisecond)
			}
			if postgresBelow(tmp) {
				t.Errorf("servers still run 20 s after tenantbench was killed")
			}
			if len(cgroups) > 0 && (len(cgroups) != 2 || !cgroupExists(cgroups[0])) {
				t.Fatalf("cgroups %v: want the two servers' left until down", cgroups)
			}
			// The postmasters themselves got the signal and shut down
			// (they run as another user, behind a wrapper with cgroup v1).
			for _, dir := range liveDirs(t, tmp) {
				b, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
				if !bytes.Contains(b, []byte("received immediate shutdown request")) || !bytes.Contains(b, []byte("database system is shut down")) {
					t.Errorf("%s/postgres.log does not show an immediate shutdown:\n%s", dir, b)
				}
			}
			// A new run (here of a missing spec) says what is left and how
			// to remove it.
			cmd := exec.Command(binary, "run", filepath.Join(tmp, "missing.yaml"))
			cmd.Env = registryEnv(tmp)
			b, _ := cmd.CombinedOutput()
			if !strings.Contains(string(b), "left 2 server(s)") || !strings.Contains(string(b), "tenantbench down --all") {
				t.Errorf("a new run does not warn of the leftovers:\n%s", b)
			}
			args := []string{"down", out}
			if how == "all" {
				args = []string{"down", "--all"}
			}
			cmd = exec.Command(binary, args...)
			cmd.Env = registryEnv(tmp)
			if b, err := cmd.CombinedOutput(); err != nil || strings.Count(string(b), "stopped and removed instance") != 2 {
				t.Fatalf("%v: %v\n%s", args, err, b)
			}
			assertAllGone(t, tmp, cgroups)
			cmd = exec.Command(binary, "down", "--all")
			cmd.Env = registryEnv(tmp)
			if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "nothing left") {
				t.Errorf("down --all again: %v\n%s", err, b)
			}
		})
	}
}

// liveCgroups are the cgroups live.json lists now (the run's servers').
func liveCgroups(t *testing.T, tmp string) []string {
	t.Helper()
	var b run.LiveBook
	raw, err := os.ReadFile(filepath.Join(tmp, "results", run.LiveFile))
	if err != nil || json.Unmarshal(raw, &b) != nil || len(b.Instances) != 2 {
		t.Fatalf("%s during the run: %v\n%s", run.LiveFile, err, raw)
	}
	var out []string
	for _, r := range b.Instances {
		if r.Pid == 0 || r.PidStart == 0 || r.Port == 0 {
			t.Errorf("live record %+v lacks the process or port", r)
		}
		if r.Cgroup != "" {
			out = append(out, r.Cgroup)
		}
	}
	return out
}

// liveDirs are the instance directories live.json lists.
func liveDirs(t *testing.T, tmp string) []string {
	t.Helper()
	b, err := run.ReadLive(filepath.Join(tmp, "results"))
	if err != nil || b == nil || len(b.Instances) == 0 {
		t.Fatalf("%s after the kill: %v", run.LiveFile, err)
	}
	var out []string
	for _, r := range b.Instances {
		out = append(out, filepath.Dir(r.DataDir))
	}
	return out
}

// postgresBelow reports whether a server process runs on a data
// directory below dir.
func postgresBelow(dir string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(dir)) && bytes.Contains(b, []byte("postgres")) && !bytes.Contains(b, []byte(binary)) {
			return true
		}
	}
	return false
}

// skipIfHangupIgnored skips a test of SIGHUP when this process ignores it
// (`nohup make test`): tenantbench inherits that and, as `nohup tenantbench
// run` asks, rightly keeps running (interruptContext).
func skipIfHangupIgnored(t *testing.T) {
	t.Helper()
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("SIGHUP is ignored here (nohup?), and tenantbench would inherit that")
	}
}
