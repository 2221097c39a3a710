package local

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestFailOver kills a primary with two standbys and a pgbouncer in front
// of it (the pooler when pgbouncer is installed): a standby is promoted
// and accepts writes, the other follows it (a row written after the
// promotion reaches it) through a slot of its own there, a client of the
// pooler commits again on the promoted server, the dead primary's Stop
// stops neither, and down (StopRecord) of the two leaves no process,
// cgroup or directory of any of the three, nor the pooler.
func TestFailOver(t *testing.T) {
	p := newProvider(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var prim *provider.Instance
	pw := ""
	if _, err := (pooler.PgBouncer{}).Find(); err == nil {
		prim, _, pw = poolerReady(t, p, "fo", "transaction", nil)
	} else {
		t.Logf("without a pooler: %v", err)
		prim = start(t, p, provider.InstanceSpec{Name: "fo", WorkDir: testDir(t)})
	}
	admin := connect(t, prim.AdminDSN("postgres"))
	if _, err := admin.Exec(ctx, "CREATE TABLE seen (n int primary key); INSERT INTO seen VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	rep, _ := provider.As[provider.Replicated](prim)
	rs, err := rep.StartReplicas(ctx, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]*provider.Instance{prim}, rs...)
	groups := map[*provider.Instance]*cgroup.Group{}
	for _, i := range all {
		if path := Of(i).CgroupPath; path != "" {
			groups[i] = p.cgroups.Open(path)
		}
	}
	t.Cleanup(func() {
		for _, i := range rs {
			_ = p.Stop(context.Background(), i)
		}
	})
	pooled := prim.Pool != nil
	var poolerPid int
	if pooled {
		if _, err := admin.Exec(ctx, "GRANT ALL ON seen TO t01"); err != nil {
			t.Fatal(err)
		}
		poolerPid = prim.Record().Pooler.Pid
	}
	admin.Close(ctx)

	fo, ok := provider.As[provider.FailOver](prim)
	if !ok {
		t.Fatal("a local instance cannot fail over")
	}
	var moved *provider.Instance
	began := time.Now()
	promoted, down, err := fo.FailOver(ctx, 0, func(i *provider.Instance) { moved = i })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("promoted %s in %v (down after %v)", promoted.Name, time.Since(began), down.Sub(began))
	if moved != promoted || (promoted != rs[0] && promoted != rs[1]) || down.Before(began) {
		t.Fatalf("promoted %v, moved %v, down %v", promoted, moved, down)
	}
	other := rs[0]
	if other == promoted {
		other = rs[1]
	}
	select {
	case <-prim.Exited:
	default:
		t.Error("the killed primary's Exited is open")
	}
	if alive(Of(prim).Pid) {
		t.Errorf("the killed primary %d still runs", Of(prim).Pid)
	}
	if provider.Role(promoted) != "primary" || provider.Role(other) != "replica" || Of(other).PrimaryOf() != promoted {
		t.Errorf("roles %s, %s following %v", provider.Role(promoted), provider.Role(other), Of(other).PrimaryOf())
	}
	if got := provider.ReplicasOf(promoted); len(got) != 1 || got[0] != other || len(provider.ReplicasOf(prim)) != 0 {
		t.Errorf("replicas of the promoted %v, of the dead %v", names(got), names(provider.ReplicasOf(prim)))
	}
	pc := connect(t, promoted.AdminDSN("postgres"))
	if _, err := pc.Exec(ctx, "INSERT INTO seen VALUES (2)"); err != nil {
		t.Fatalf("the promoted server refused a write: %v", err)
	}
	oc := connect(t, other.AdminDSN("postgres"))
	waitRows(t, oc, 2)
	var slots []string
	rows, _ := pc.Query(ctx, "SELECT slot_name || ':' || active FROM pg_replication_slots")
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		slots = append(slots, s)
	}
	if len(slots) != 1 || slots[0] != slotName(other.Name)+":true" {
		t.Errorf("slots on the promoted server %v, want the other standby's, active", slots)
	}
	if pooled {
		if promoted.Pool == nil || promoted.Record().Pooler == nil || prim.Record().Pooler != nil {
			t.Fatalf("pooler not moved: promoted's %+v, dead's %+v", promoted.Record().Pooler, prim.Record().Pooler)
		}
		// The pooler's client connects as before and lands on the
		// promoted server.
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, err := connectErr(ctx, promoted.WorkloadDSN("tcp", "postgres", "t01", pw))
			if err == nil {
				_, err = c.Exec(ctx, "INSERT INTO seen VALUES (3)")
				c.Close(ctx)
			}
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no commit through the pooler after the fail-over: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		waitRows(t, oc, 3)
	}
	oc.Close(ctx)
	pc.Close(ctx)
	// The dead primary's Stop leaves the standby that moved alone.
	if err := p.Stop(ctx, prim); err != nil {
		t.Fatal(err)
	}
	if !alive(Of(other).Pid) || !alive(Of(promoted).Pid) {
		t.Fatal("stopping the dead primary stopped a server that moved")
	}
	if pooled && !alive(poolerPid) {
		t.Fatal("stopping the dead primary stopped the pooler that moved")
	}
	// down's way, from the ledger's records alone: the promoted
	// server's names the pooler now.
	for _, i := range []*provider.Instance{promoted, other} {
		if err := StopRecord(ctx, i.Record()); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range all {
		checkGone(t, i, groups[i])
	}
	if pooled && alive(poolerPid) {
		t.Errorf("pooler %d still runs", poolerPid)
	}
}

func connectErr(ctx context.Context, dsn string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return pgx.Connect(ctx, dsn)
}

// TestFailOverCancelled cancels a fail-over as soon as the replica is
// promoted (a Ctrl-C while the other is being pointed at it): the error
// says so, and stopping the three servers as a run's teardown does, all
// at once, leaves no process or cgroup of any.
func TestFailOverCancelled(t *testing.T) {
	p := newProvider(t, Options{})
	prim := start(t, p, provider.InstanceSpec{Name: "foc", WorkDir: testDir(t)})
	rep, _ := provider.As[provider.Replicated](prim)
	rs, err := rep.StartReplicas(context.Background(), 2, true)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]*provider.Instance{prim}, rs...)
	groups := map[*provider.Instance]*cgroup.Group{}
	for _, i := range all {
		if path := Of(i).CgroupPath; path != "" {
			groups[i] = p.cgroups.Open(path)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	fo, _ := provider.As[provider.FailOver](prim)
	promoted, _, err := fo.FailOver(ctx, 2, func(*provider.Instance) { cancel() })
	if err == nil || promoted != rs[1] {
		t.Errorf("a fail-over cancelled after the promotion: promoted %v, error %v", promoted, err)
	}
	errs := make(chan error, len(all))
	for _, i := range all {
		go func() { errs <- p.Stop(context.Background(), i) }()
	}
	for range all {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for _, i := range all {
		checkGone(t, i, groups[i])
	}
}
