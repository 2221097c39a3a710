package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider/local"
)

// needNetwork skips, saying why, where sut.network with link cannot run.
func needNetwork(t *testing.T, link netns.Link) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL in a network namespace")
	}
	if why := netns.Usable(context.Background(), link); why != "" {
		t.Skip("sut.network " + link.String() + ": " + why)
	}
}

// netnsNames are the network namespaces `ip netns list` shows whose name
// begins with prefix.
func netnsNames(t *testing.T, prefix string) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			names = append(names, f[0])
		}
	}
	return names
}

// TestRunThroughNetwork: a tpcb run with sut.network's plain link places
// its servers (and, with sut.pooler, their pgbouncer) in the run's
// namespace, their clients commit across the veth pair, the ledger lists
// the namespace while it exists, and after teardown no namespace or veth
// of the run is left, nor in the ledger.
func TestRunThroughNetwork(t *testing.T) {
	needNetwork(t, netns.Link{})
	for name, sut := range map[string]string{
		"instance": "{network: {}}\ntenancy: {model: instance, tenants: 2}",
		"pooler":   "{network: {}, pooler: {kind: pgbouncer, mode: session, pool_size: 2}}\ntenancy: {model: database, tenants: 2}",
	} {
		t.Run(name, func(t *testing.T) {
			if name == "pooler" {
				if _, err := (pooler.PgBouncer{}).Find(); err != nil {
					t.Skip(err)
				}
			}
			ex := newExecution(t, "name: t\nsut: "+sut+"\nworkload: {name: tpcb, scale: 1, clients: 2, duration: 2s}\n")
			checkThroughNetwork(t, ex)
		})
	}
}

func checkThroughNetwork(t *testing.T, ex *execution) {
	t.Helper()
	res := withLedger(t, ex)
	// Another run on the machine (a test of another package, a user's)
	// may have a namespace of the same run id: only this one's count.
	prefix := "tb-" + ex.run.ID + "-"
	before := map[string]bool{}
	for _, name := range netnsNames(t, prefix) {
		before[name] = true
	}
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload", "check")
	n := ex.net
	if n == nil {
		t.Fatal("the run has no network")
	}
	if !strings.HasPrefix(n.Name, prefix) {
		t.Errorf("namespace %s does not carry the run id %s", n.Name, ex.run.ID)
	}
	for _, inst := range ex.instances {
		if inst.Host != n.NSAddr {
			t.Errorf("instance %s at %s, not the namespace's %s", inst.Name, inst.Host, n.NSAddr)
		}
		if inst.Pool != nil && inst.Pool.Host != n.NSAddr {
			t.Errorf("pooler of %s at %s, not the namespace's %s", inst.Name, inst.Pool.Host, n.NSAddr)
		}
	}
	obs := ex.observations(time.Now(), nil)
	for _, tw := range obs.Workload.Tenants {
		if tw.All.Committed == 0 || tw.All.FailedTotal() != 0 {
			t.Errorf("%s: %d committed, failed %v", tw.Name, tw.All.Committed, tw.All.Failed)
		}
	}
	if b, err := ReadLive(res); err != nil || b == nil || len(b.Networks) != 1 || b.Networks[0].Name != n.Name || b.Networks[0].Subnet != n.Subnet {
		t.Errorf("the ledger lists networks %+v (%v), want %s", b, err, n.Name)
	}
	if err := ex.teardown(); err != nil {
		t.Fatal(err)
	}
	if netns.Exists(n.Record) {
		t.Errorf("namespace %s or veth %s is left", n.Name, n.HostIf)
	}
	for _, name := range netnsNames(t, prefix) {
		if !before[name] {
			t.Errorf("namespace %s of the run left", name)
		}
	}
	if b, _ := ReadLive(res); b != nil && len(b.Networks) > 0 {
		t.Errorf("the ledger still lists %+v", b.Networks)
	}
}

// TestDownRemovesNetwork: the ledger of a run that ended without its
// teardown (as after SIGKILL: its servers up in the namespace) lets down
// stop the servers and remove the namespace and veth pair, and, with a
// delay on the queue emulator, its delayer, the delayer's cgroup and
// files.
func TestDownRemovesNetwork(t *testing.T) {
	for _, link := range []string{"{}", "{delay: 1ms, emulator: queue}"} {
		t.Run(link, func(t *testing.T) { downRemovesNetwork(t, link) })
	}
}

func downRemovesNetwork(t *testing.T, link string) {
	if link != "{}" {
		needNetwork(t, netns.Link{Delay: time.Millisecond, Emulator: "queue"})
	}
	needNetwork(t, netns.Link{})
	ex := newExecution(t, `name: t
sut: {network: `+link+`}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 1s}
`)
	res := withLedger(t, ex)
	ex.steps(t, "provision")
	n := ex.net
	if n == nil || !netns.Exists(n.Record) {
		t.Fatal("no network")
	}
	// The ledger as a killed tenantbench leaves it: its owner gone.
	l := ex.opts.Ledger
	l.mu.Lock()
	l.book.Owner = Owner{Pid: 1, Start: 1}
	l.save()
	l.mu.Unlock()
	b, err := ReadLive(res)
	if err != nil || b == nil {
		t.Fatal(b, err)
	}
	var said []string
	if err := CleanUp(context.Background(), b, local.StopRecord, func(s string) { said = append(said, s) }); err != nil {
		t.Fatal(err)
	}
	t.Log(strings.Join(said, "\n"))
	if netns.Exists(n.Record) {
		t.Errorf("down left namespace %s or veth %s", n.Name, n.HostIf)
	}
	if link != "{}" {
		d := b.Networks[0].Delayer
		if d == nil || d.Pid == 0 || d.Dir == "" {
			t.Fatalf("the ledger's delayer: %+v", d)
		}
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(d.Pid))); err == nil {
			t.Errorf("delayer (pid %d) still runs", d.Pid)
		}
		if _, err := os.Stat(d.Dir); err == nil {
			t.Errorf("delayer's directory %s left", d.Dir)
		}
	}
	for _, inst := range ex.instances {
		if pid := local.Of(inst).Pid; pid > 0 {
			if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
				t.Errorf("server %s (pid %d) still runs", inst.Name, pid)
			}
		}
	}
	if got, _ := ReadLive(res); got != nil {
		t.Error("live.json is still there")
	}
	ex.instances = nil // down stopped them; the test's teardown has nothing left
	ex.net = nil
}

// TestRunDelay: a tpcb run through a link of 2 ms each way has a mean
// latency at least 4 ms above the same run's on loopback.
func TestRunDelay(t *testing.T) {
	needNetwork(t, netns.Link{Delay: 2 * time.Millisecond})
	mean := func(network string) float64 {
		ex := newExecution(t, `name: t
sut: {network: `+network+`}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 3s}
`)
		ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload")
		obs := ex.observations(time.Now(), nil)
		w := obs.Workload.Tenants[0]
		if w.All.Committed == 0 {
			t.Fatal("nothing committed")
		}
		return w.All.MeanMs
	}
	near, far := mean("~"), mean("{delay: 2ms}")
	t.Logf("mean latency %.3f ms on loopback, %.3f ms through 2 ms each way", near, far)
	if far-near < 4 {
		t.Errorf("the link added %.3f ms, want at least 4", far-near)
	}
}

// TestRunDelayerDies: a delayer that dies during the workload ends the
// phase at once (not at its 60 s), and the run's error names it.
func TestRunDelayerDies(t *testing.T) {
	needNetwork(t, netns.Link{Delay: time.Millisecond, Emulator: "queue"})
	ex := newExecution(t, `name: t
sut: {network: {delay: 1ms, emulator: queue}}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 60s}
`)
	ctx, abort := context.WithCancelCause(context.Background())
	defer abort(nil)
	ex.abort = abort
	for _, phase := range []func(context.Context) error{ex.provision, ex.setup, ex.ingest, ex.postIngest} {
		if err := phase(ctx); err != nil {
			t.Fatal(err)
		}
	}
	d := ex.net.Delayer
	if d == nil {
		t.Fatal("no delayer")
	}
	time.AfterFunc(time.Second, func() { syscall.Kill(d.Pid, syscall.SIGKILL) })
	t0 := time.Now()
	err := ex.workload(ctx)
	took := time.Since(t0)
	t.Logf("workload ended after %v: %v; cause: %v", took, err, context.Cause(ctx))
	if took > 30*time.Second {
		t.Errorf("the workload went on for %v after its delayer died", took)
	}
	errs := ex.networkErrors()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "delayer") || !strings.Contains(context.Cause(ctx).Error(), "delayer") {
		t.Errorf("the run says %v, cause %v", errs, context.Cause(ctx))
	}
}
