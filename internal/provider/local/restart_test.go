package local

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestRestartInPlace restarts a server with a fast shutdown and then
// crashes it: each time a new postmaster serves the same endpoint and
// data (a committed row survives, the crash recovered from the WAL), the
// instance's Exited stays open, and Stop leaves nothing afterwards.
func TestRestartInPlace(t *testing.T) {
	p := newProvider(t, Options{})
	dir := testDir(t)
	ctx := context.Background()
	inst, err := p.Start(ctx, provider.InstanceSpec{Name: "phoenix", WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var group *cgroup.Group
	if Of(inst).CgroupPath != "" {
		group = p.cgroups.Open(Of(inst).CgroupPath)
	}
	port, sock := inst.Port, inst.SocketDir
	conn := connect(t, inst.AdminDSN("postgres"))
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	r, ok := provider.As[provider.Restarter](inst)
	if !ok {
		t.Fatal("a local instance cannot be restarted")
	}
	for i, crash := range []bool{false, true} {
		before := Of(inst).ProcessRoot()
		start := time.Now()
		down, err := r.Restart(ctx, crash)
		if err != nil {
			t.Fatalf("restart (crash %v): %v", crash, err)
		}
		if down.Before(start) || time.Since(down) < 0 {
			t.Errorf("down at %v, not within the restart from %v", down, start)
		}
		if after := Of(inst).ProcessRoot(); after == before || !alive(after) || alive(before) {
			t.Errorf("crash %v: postmaster %d -> %d (alive %v, old alive %v)", crash, before, after, alive(after), alive(before))
		}
		if inst.Port != port || inst.SocketDir != sock {
			t.Errorf("endpoint moved: %d %s -> %d %s", port, sock, inst.Port, inst.SocketDir)
		}
		select {
		case <-inst.Exited:
			t.Fatalf("Exited closed by a restart (crash %v)", crash)
		default:
		}
		c := connect(t, inst.AdminDSN("postgres"))
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n); err != nil || n != i+1 {
			t.Fatalf("after restart %d: %d rows, %v", i, n, err)
		}
		if _, err := c.Exec(ctx, "INSERT INTO kept VALUES (2)"); err != nil {
			t.Fatal(err)
		}
		if crash {
			found, err := grepLog(inst.LogFile, "automatic recovery in progress")
			if err != nil || !found {
				t.Errorf("no crash recovery in the log after SIGKILL (%v)", err)
			}
			if n, _ := countLog(inst.LogFile, "database system is shut down"); n != 1 {
				t.Errorf("%d shutdowns in the log, want 1 (the restart's): a crash is no shutdown", n)
			}
		}
	}
	if err := p.Stop(ctx, inst); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inst.Exited:
	case <-time.After(5 * time.Second):
		t.Error("Exited still open after Stop")
	}
	if _, err := r.Restart(ctx, false); err == nil || !strings.Contains(err.Error(), "is stopped") {
		t.Errorf("restart after Stop: %v, want it refused as stopped", err)
	}
	checkGone(t, inst, group)
}

func grepLog(path, s string) (bool, error) {
	b, err := os.ReadFile(path)
	return strings.Contains(string(b), s), err
}

func countLog(path, s string) (int, error) {
	b, err := os.ReadFile(path)
	return strings.Count(string(b), s), err
}
