package local

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestCapabilities: a local instance answers every capability a caller
// may ask of it, from the server it really is.
func TestCapabilities(t *testing.T) {
	p := newProvider(t, Options{})
	inst := start(t, p, provider.InstanceSpec{Name: "caps", WorkDir: testDir(t), CPUs: 1.5, MemoryBytes: 256 << 20})
	proc := Of(inst)

	rs, ok := provider.As[provider.ResourceSampler](inst)
	if !ok || rs.ProcessRoot() != proc.Pid || !isServer(postgres.Engine{}, rs.ProcessRoot(), proc.DataDir) {
		t.Errorf("process root %v (sampler %v), want the postmaster on %s", rs, ok, proc.DataDir)
	}
	if path, mode := provider.CgroupOf(inst); path != proc.CgroupPath || mode != proc.CgroupMode || mode == "" {
		t.Errorf("cgroup %q %q, want %q %q", path, mode, proc.CgroupPath, proc.CgroupMode)
	}
	lim, _ := provider.As[provider.Limits](inst)
	if cpus, mem, enforced := lim.Limits(); cpus != 1.5 || mem != 256<<20 || enforced != inst.LimitsEnforced {
		t.Errorf("limits %g CPUs, %d bytes, enforced %v", cpus, mem, enforced)
	}

	st, _ := provider.As[provider.Storage](inst)
	before, err := st.StorageBytes()
	if err != nil || before < 1<<20 {
		t.Fatalf("a fresh data directory holds %d bytes (%v)", before, err)
	}
	conn := connect(t, inst.AdminDSN("postgres"))
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE big AS SELECT g, repeat('x', 100) AS pad FROM generate_series(1, 50000) g; CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	if after, err := st.StorageBytes(); err != nil || after < before+4<<20 {
		t.Errorf("5 MB of rows grew the data directory from %d to %d bytes (%v)", before, after, err)
	}

	rec := inst.Record()
	if rec.Name != "caps" || rec.Pid != proc.Pid || rec.DataDir != proc.DataDir || rec.Cgroup != proc.CgroupPath ||
		rec.Port != inst.Port || rec.SocketDir != inst.SocketDir {
		t.Errorf("record %+v of %+v", rec, proc)
	}

	// A frozen server answers nothing until thawed.
	fr, _ := provider.As[provider.Freezer](inst)
	if err := fr.Freeze(); err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = conn.Exec(qctx, "SELECT 1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a query to a frozen server: %v, want a timeout", err)
	}
	if err := fr.Thaw(); err != nil {
		t.Fatal(err)
	}
	// The timed-out connection is gone; a new one works.
	again := connect(t, inst.AdminDSN("postgres"))
	if _, err := again.Exec(ctx, "SELECT 1"); err != nil {
		t.Errorf("after thawing: %v", err)
	}
}
