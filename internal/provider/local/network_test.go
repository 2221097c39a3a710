package local

import (
	"context"
	"os"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// network makes a Net for the test, removed when it ends; it skips,
// saying why, where sut.network cannot run.
func network(t *testing.T, p *Provider, link netns.Link) *netns.Net {
	t.Helper()
	if why := netns.Usable(context.Background(), link); why != "" {
		t.Skip("sut.network " + link.String() + ": " + why)
	}
	n, err := p.Network(context.Background(), "local-test", link, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Remove(); err != nil {
			t.Error(err)
		}
		if netns.Exists(n.Record) {
			t.Errorf("network %s left behind", n.Name)
		}
	})
	return n
}

// TestNetwork: a server started in a network namespace runs there (its
// postmaster's network namespace is the Net's), in its cgroup and as the
// server user as ever, listens on the namespace's address and lets in a
// client from the host's end of the link over TCP; its pooler runs there
// too. Stopping it leaves nothing.
func TestNetwork(t *testing.T) {
	p := newProvider(t, Options{})
	n := network(t, p, netns.Link{})
	inst := start(t, p, provider.InstanceSpec{Name: "n1", WorkDir: testDir(t), Network: n})
	if inst.Host != n.NSAddr {
		t.Errorf("instance host %s, want the namespace's %s", inst.Host, n.NSAddr)
	}
	ctx := context.Background()
	conn := connect(t, inst.DSN("tcp", "postgres", inst.User, inst.Password))
	var server, client string
	if err := conn.QueryRow(ctx, "SELECT host(inet_server_addr()), host(inet_client_addr())").Scan(&server, &client); err != nil {
		t.Fatal(err)
	}
	if server != n.NSAddr || client != n.HostAddr {
		t.Errorf("server %s client %s, want %s and %s", server, client, n.NSAddr, n.HostAddr)
	}
	pid := Of(inst).Pid
	inside, _ := os.Readlink("/proc/" + itoa(pid) + "/ns/net")
	ours, _ := os.Readlink("/proc/self/ns/net")
	want := nsInode(t, n)
	if inside == ours || inside != want {
		t.Errorf("postmaster's network namespace %s, ours %s, the Net's %s", inside, ours, want)
	}
	if p.cgroups.Mode != "none" && Of(inst).CgroupPath == "" {
		t.Error("the server has no cgroup")
	}
	if p.account != nil {
		if st, err := os.Stat("/proc/" + itoa(pid)); err != nil || int(statUID(st)) != p.account.uid {
			t.Errorf("postmaster runs as uid %d, want %d (%v)", statUID(st), p.account.uid, err)
		}
	}

	// Its pooler, beside it in the namespace, on the same address.
	if _, err := (pooler.PgBouncer{}).Find(); err != nil {
		t.Log("no pooler part: ", err)
		return
	}
	const pw = "secret-of-t01"
	for _, q := range (postgres.Engine{}).CreateLogin("t01", pw) {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, _ := conn.Query(ctx, postgres.Engine{}.SecretsQuery(), []string{"t01"})
	secrets, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	pool, err := Of(inst).StartPooler(ctx, pooler.Config{Kind: "pgbouncer", Mode: "transaction", PoolSize: 2}, secrets)
	if err != nil {
		t.Fatal(err)
	}
	if pool.Host != n.NSAddr {
		t.Errorf("pooler host %s, want %s", pool.Host, n.NSAddr)
	}
	pc := connect(t, inst.WorkloadDSN("tcp", "postgres", "t01", pw))
	var one int
	if err := pc.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("through the pooler: %d, %v", one, err)
	}
	pp := Of(inst).pooler.Pid
	if in, _ := os.Readlink("/proc/" + itoa(pp) + "/ns/net"); in != want {
		t.Errorf("pooler's network namespace %s, want %s", in, want)
	}
}

// TestNetworkDelay: a link of 2 ms each way adds at least 4 ms to a
// round trip (SELECT 1), against a server on loopback on the same
// machine, and not much more.
func TestNetworkDelay(t *testing.T) {
	p := newProvider(t, Options{})
	n := network(t, p, netns.Link{Delay: 2 * time.Millisecond})
	far := start(t, p, provider.InstanceSpec{Name: "far", WorkDir: testDir(t), Network: n})
	near := start(t, p, provider.InstanceSpec{Name: "near", WorkDir: testDir(t)})
	rtt := func(inst *provider.Instance) time.Duration {
		conn := connect(t, inst.DSN("tcp", "postgres", inst.User, inst.Password))
		var ds []time.Duration
		for range 50 {
			t0 := time.Now()
			if _, err := conn.Exec(context.Background(), "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	remote, local := rtt(far), rtt(near)
	t.Logf("median SELECT 1: %v through the link, %v on loopback", remote, local)
	if added := remote - local; added < 4*time.Millisecond || added > 8*time.Millisecond {
		t.Errorf("the link added %v to a round trip, want 4 ms (2 ms each way) and not twice that", added)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func statUID(fi os.FileInfo) uint32 {
	if fi == nil {
		return ^uint32(0)
	}
	return fi.Sys().(*syscall.Stat_t).Uid
}

// nsInode is the Net's namespace as /proc/<pid>/ns/net names it.
func nsInode(t *testing.T, n *netns.Net) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat("/run/netns/"+n.Name, &st); err != nil {
		t.Fatal(err)
	}
	return "net:[" + strconv.FormatUint(st.Ino, 10) + "]"
}
