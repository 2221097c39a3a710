package local

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
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
// machine, and less than 6 ms (the median of 50), with whichever
// emulator auto chooses here (the queue emulator on a kernel without
// netem).
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
	// A busy machine only ever adds (late wake-ups, the link's and
	// the test's): up to 3 measures, the least added counts.
	added := time.Hour
	for range 3 {
		remote, local := rtt(far), rtt(near)
		t.Logf("median SELECT 1: %v through the link, %v on loopback", remote, local)
		if added = min(added, remote-local); added < 6*time.Millisecond {
			break
		}
	}
	if added < 4*time.Millisecond || added >= 6*time.Millisecond {
		t.Errorf("the link (%s) added %v to a round trip, want 4 ms (2 ms each way) to 6 ms", n.Link, added)
	}
}

// TestNetworkLoss: through a link that loses 20 % of the packets each
// way, queries still complete (TCP retransmits), and the queue
// emulator's delayer counts its drops.
func TestNetworkLoss(t *testing.T) {
	p := newProvider(t, Options{})
	n := network(t, p, netns.Link{Loss: 20})
	inst := start(t, p, provider.InstanceSpec{Name: "lossy", WorkDir: testDir(t), Network: n})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Not connect's 10 s: the handshake and the SCRAM exchange are about
	// ten packets, and a packet lost twice running waits out a backoff of
	// 1 + 2 s or more (one run took longer than 10 s).
	conn, err := pgx.Connect(ctx, inst.DSN("tcp", "postgres", inst.User, inst.Password))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for i := range 20 {
		var got int
		if err := conn.QueryRow(ctx, "SELECT $1::int", i).Scan(&got); err != nil || got != i {
			t.Fatalf("query %d: %d, %v", i, got, err)
		}
	}
	if n.Emulator != "queue" {
		t.Logf("emulator %s: no delayer to count", n.Emulator)
		return
	}
	if err := n.Remove(); err != nil { // the delayer's last counts
		t.Fatal(err)
	}
	st, ok := n.DelayerCounts()
	all, drops := st.In.Passed+st.In.Dropped+st.Out.Passed+st.Out.Dropped, st.In.Dropped+st.Out.Dropped
	t.Logf("delayer: %d of %d packets dropped (%+v)", drops, all, st)
	if !ok || drops == 0 || float64(drops) > 0.4*float64(all) {
		t.Errorf("with 20 %% loss the delayer dropped %d of %d packets", drops, all)
	}
}

// TestNetworkRate: a COPY of 4 MB into a server behind a 16 mbit/s link
// runs at about that rate, far below loopback's.
func TestNetworkRate(t *testing.T) {
	const rate = 16e6
	p := newProvider(t, Options{})
	n := network(t, p, netns.Link{Rate: rate})
	inst := start(t, p, provider.InstanceSpec{Name: "slow", WorkDir: testDir(t), Network: n})
	conn := connect(t, inst.DSN("tcp", "postgres", inst.User, inst.Password))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE bulk (line text)"); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 1023) + "\n"
	const size = 4 << 20
	data := strings.Repeat(line, size/len(line))
	t0 := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY bulk FROM STDIN")
	took := time.Since(t0)
	if err != nil || tag.RowsAffected() != int64(size/len(line)) {
		t.Fatalf("COPY: %v, %v", tag, err)
	}
	bits := float64(len(data)*8) / took.Seconds()
	t.Logf("COPY of %d bytes in %v: %.1f Mbit/s over a %g Mbit/s link (%s)", len(data), took, bits/1e6, rate/1e6, n.Link)
	if bits > 1.1*rate || bits < 0.5*rate {
		t.Errorf("COPY ran at %.1f Mbit/s, want about %g", bits/1e6, rate/1e6)
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
