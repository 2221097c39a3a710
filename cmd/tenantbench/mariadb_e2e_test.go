package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// TestMariaDBTpcb runs examples/tpcb-mariadb.yaml through the CLI: tpcb on
// MariaDB in the database and instance models, 2 tenants each, through the
// same driver, recorder, monitor and results as PostgreSQL. Each run
// commits transactions, passes tpcb's consistency check, is sampled by the
// monitor, and leaves no server, cgroup or work directory behind.
func TestMariaDBTpcb(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs on MariaDB take about a minute")
	}
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	cmd := exec.Command(binary, "run", "../../examples/tpcb-mariadb.yaml", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 2 {
		t.Fatalf("results.csv has %d rows, want 2:\n%s", len(rows), b)
	}
	for i, model := range []string{"database", "instance"} {
		r := rows[i]
		if r["model"] != model || r["tenants"] != "2" || r["status"] != "ok" {
			t.Errorf("row %d = %v", i, r)
		}
		if num(t, r["tpm"]) <= 0 || num(t, r["cpu_s"]) <= 0 || num(t, r["mem_peak_mb"]) <= 0 {
			t.Errorf("row %d: no committed transactions or no monitored figures: %v", i, r)
		}
		for _, tn := range readCSV(t, filepath.Join(out, "runs", r["run_id"], "tenants.csv")) {
			if num(t, tn["committed"]) <= 0 {
				t.Errorf("run %s tenant %s committed nothing: %v", r["run_id"], tn["tenant"], tn)
			}
		}
	}
	// Nothing is left: no mariadbd on a data directory below tmp, no work
	// directory (the results are all tmp holds).
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if args, err := p.CmdLine(); err == nil && len(args) > 0 && strings.Contains(strings.Join(args, " "), tmp) &&
			strings.HasPrefix(filepath.Base(args[0]), "mariadbd") {
			t.Errorf("server left running: %d %v", p.PID, args)
		}
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		if e.Name() != "results" {
			t.Errorf("%s left in the work root", e.Name())
		}
	}
}

// longMariaDB is longSpec on MariaDB: two servers, cut in their workload.
const longMariaDB = `name: cut
sut: {engine: mariadb}
tenancy: {model: instance, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: 10m}
progress: 1s
`

// TestMariaDBCut: a MariaDB run cut by a signal stops its servers and
// leaves nothing (SIGHUP); a SIGKILL of tenantbench ends its servers by
// their parent death signal, and down removes what is left.
func TestMariaDBCut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB servers")
	}
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	t.Run("hangup", func(t *testing.T) {
		skipIfHangupIgnored(t)
		tmp := workRoot(t)
		var cgroups []string
		_, err, log, stderr := cutRunOf(t, tmp, longMariaDB, func(cmd *exec.Cmd, _ *os.File) {
			cgroups = liveCgroups(t, tmp)
			cmd.Process.Signal(syscall.SIGHUP)
		})
		assertCutRecorded(t, tmp, err, "SIGHUP", log, stderr)
		assertAllGone(t, tmp, cgroups)
	})
	t.Run("killed", func(t *testing.T) {
		tmp := workRoot(t)
		out := filepath.Join(tmp, "results")
		var cgroups []string
		_, err, log, stderr := cutRunOf(t, tmp, longMariaDB, func(cmd *exec.Cmd, _ *os.File) {
			cgroups = liveCgroups(t, tmp)
			cmd.Process.Signal(syscall.SIGKILL)
		})
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("exit = %v, want killed\n%s%s", err, log, stderr)
		}
		t.Cleanup(func() { exec.Command(binary, "down", out).Run() })
		for end := time.Now().Add(30 * time.Second); mariadbBelow(tmp) && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if mariadbBelow(tmp) {
			t.Errorf("servers still run 30 s after tenantbench was killed")
		}
		cmd := exec.Command(binary, "down", out)
		cmd.Env = registryEnv(tmp)
		if b, err := cmd.CombinedOutput(); err != nil || strings.Count(string(b), "stopped and removed instance") != 2 {
			t.Fatalf("down: %v\n%s", err, b)
		}
		assertAllGone(t, tmp, cgroups)
	})
}

// mariadbBelow reports whether a mariadbd runs on a data directory below
// dir.
func mariadbBelow(dir string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(dir)) && bytes.Contains(b, []byte("mariadbd")) {
			return true
		}
	}
	return false
}
