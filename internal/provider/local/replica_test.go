package local

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestReplicas gives a limited primary two synchronous standbys: each is
// a server of its own with the primary's limits, a row committed on the
// primary is on each at once (synchronous: before the commit returns it
// is flushed on both; read until replayed), a standby refuses writes, and
// stopping the primary stops the standbys first and leaves no process,
// cgroup, socket or replication slot.
func TestReplicas(t *testing.T) {
	p := newProvider(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prim, err := p.Start(ctx, provider.InstanceSpec{Name: "shared", WorkDir: testDir(t), CPUs: 0.5, MemoryBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = p.Stop(context.Background(), prim)
		}
	})
	conn := connect(t, prim.AdminDSN("postgres"))
	if _, err := conn.Exec(ctx, "CREATE TABLE seen (n int primary key); INSERT INTO seen VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	rep, ok := provider.As[provider.Replicated](prim)
	if !ok {
		t.Fatal("a local instance is not Replicated")
	}
	rs, err := rep.StartReplicas(ctx, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Name != "shared-r1" || rs[1].Name != "shared-r2" {
		t.Fatalf("replicas %v", names(rs))
	}
	if got := provider.ReplicasOf(prim); len(got) != 2 || got[0] != rs[0] {
		t.Errorf("Replicas() = %v", names(got))
	}
	if provider.Role(prim) != "primary" || provider.Role(rs[0]) != "replica" {
		t.Errorf("roles %s, %s", provider.Role(prim), provider.Role(rs[0]))
	}
	// The reload reaches this session a moment later.
	want, s := `FIRST 2 ("shared-r1", "shared-r2")`, ""
	for deadline := time.Now().Add(5 * time.Second); s != want && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		s = show(t, conn, "synchronous_standby_names")
	}
	if s != want {
		t.Errorf("synchronous_standby_names = %q, want %q", s, want)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO seen VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	var groups []*cgroup.Group
	for _, r := range rs {
		if r.Port == prim.Port || r.SocketDir == prim.SocketDir || Of(r).DataDir == Of(prim).DataDir {
			t.Errorf("%s shares the primary's endpoint or data: %d %s %s", r.Name, r.Port, r.SocketDir, Of(r).DataDir)
		}
		if cpus, mem, _ := Of(r).Limits(); cpus != 0.5 || mem != 256<<20 {
			t.Errorf("%s limits %v CPUs %d bytes, want the primary's", r.Name, cpus, mem)
		}
		if Of(r).CgroupPath != "" {
			if Of(r).CgroupPath == Of(prim).CgroupPath {
				t.Errorf("%s in the primary's cgroup", r.Name)
			}
			groups = append(groups, p.cgroups.Open(Of(r).CgroupPath))
		} else {
			groups = append(groups, nil)
		}
		rc := connect(t, r.AdminDSN("postgres"))
		waitRows(t, rc, 2)
		if _, err := rc.Exec(ctx, "INSERT INTO seen VALUES (3)"); err == nil {
			t.Errorf("%s accepted a write", r.Name)
		}
		rc.Close(ctx)
	}
	var slots int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots").Scan(&slots); err != nil || slots != 2 {
		t.Errorf("%d slots on the primary (%v), want 2", slots, err)
	}
	// Stopping one standby drops its slot; the other stays.
	if err := p.Stop(ctx, rs[0]); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots").Scan(&slots); err != nil || slots != 1 {
		t.Errorf("%d slots after a standby stopped (%v), want 1", slots, err)
	}
	// Stopping the primary stops its standbys first, each dropping its
	// slot: none is left on it.
	srv, err := p.serverOf(prim)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.stopReplicas(ctx, srv); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots").Scan(&slots); err != nil || slots != 0 {
		t.Errorf("%d slots after the standbys stopped (%v), want none", slots, err)
	}
	// The primary waits for no standby any more: a commit returns at
	// once (a cancel by statement_timeout would end a wait for a
	// standby with a warning only, after 10 s).
	began := time.Now()
	if _, err := conn.Exec(ctx, "SET statement_timeout = '10s'; INSERT INTO seen VALUES (4)"); err != nil || time.Since(began) > 5*time.Second {
		t.Errorf("a commit after the standbys stopped took %v (%v)", time.Since(began), err)
	}
	conn.Close(ctx)
	if err := p.Stop(ctx, prim); err != nil {
		t.Fatal(err)
	}
	stopped = true
	for i, r := range rs {
		checkGone(t, r, groups[i])
	}
}

// waitRows waits until table seen has n rows on conn (a standby replays
// what it has received a moment later).
func waitRows(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got int
		err := conn.QueryRow(context.Background(), "SELECT count(*) FROM seen").Scan(&got)
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows (%v), want %d", got, err, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func names(is []*provider.Instance) []string {
	var out []string
	for _, i := range is {
		out = append(out, fmt.Sprintf("%s:%d", i.Name, i.Port))
	}
	return out
}
