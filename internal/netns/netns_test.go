package netns

import (
	"bytes"
	"context"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{"1gbit": 1e9, "100mbit": 1e8, "10mbps": 8e7, "1.5Mbit": 1.5e6, "800bit": 800} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
		if back, err := ParseRate(FormatRate(got)); err != nil || back != got {
			t.Errorf("FormatRate(%d) = %q reads back as %d, %v", got, FormatRate(got), back, err)
		}
	}
	for _, bad := range []string{"", "fast", "1", "-1gbit", "0mbit", "1 gigabit", "1e20tbit"} {
		if v, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) = %d, want an error", bad, v)
		}
	}
}

func TestNetemArgs(t *testing.T) {
	l := Link{Delay: time.Millisecond, Jitter: 200 * time.Microsecond, Loss: 0.5, Rate: 1e9}
	if got, want := strings.Join(l.netemArgs(), " "), "netem delay 1000us 200us loss 0.5% rate 1000000000bit"; got != want {
		t.Errorf("netem args %q, want %q", got, want)
	}
	if (Link{}).Plain() != true || l.Plain() {
		t.Error("Plain is wrong")
	}
}

func TestFreeSubnet(t *testing.T) {
	used := parseAddrs(`1: lo    inet 127.0.0.1/8 scope host lo
5: tb0a0b0c0dh    inet 198.51.100.1/30 scope global tb0a0b0c0dh
6: tb0a0b0c0eh    inet 198.51.100.9/30 scope global tb0a0b0c0eh`)
	if len(used) != 3 {
		t.Fatalf("parsed %v", used)
	}
	sub, ok := freeSubnet(used)
	if !ok || sub != netip.MustParsePrefix("198.51.100.4/30") {
		t.Errorf("free subnet %v %v, want 198.51.100.4/30", sub, ok)
	}
	var all []netip.Addr
	for a := Pool.Addr(); Pool.Contains(a); a = a.Next() {
		all = append(all, a)
	}
	if sub, ok := freeSubnet(all); ok {
		t.Errorf("a full pool gave %v", sub)
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if why := Usable(context.Background(), Link{}); why != "" {
		t.Skip("sut.network: " + why)
	}
}

// TestCreate: a plain Net has its namespace and veth pair with the
// addresses recorded, a program started in it sees only the namespace's
// interfaces, the host reaches the namespace's address over the pair,
// two Nets at once get different /30s, and Remove leaves nothing.
func TestCreate(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	var notes []Record
	a, err := Create(ctx, "test-create", Link{}, func(r Record) { notes = append(notes, r) })
	if err != nil {
		t.Fatal(err)
	}
	defer a.Remove()
	b, err := Create(ctx, "test-create", Link{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove()
	if a.Subnet == "" || a.Subnet == b.Subnet || a.Name == b.Name {
		t.Errorf("two nets share a subnet or name: %+v %+v", a.Record, b.Record)
	}
	if len(notes) < 2 || notes[0].Name != a.Name || notes[len(notes)-1].Subnet != a.Subnet {
		t.Errorf("the ledger was told %+v", notes)
	}
	if !Pool.Contains(netip.MustParseAddr(a.NSAddr)) || !strings.HasPrefix(a.Name, "tb-test-create-") {
		t.Errorf("record %+v", a.Record)
	}
	var out bytes.Buffer
	cmd := exec.Command("ip", "-o", "-4", "addr", "show")
	cmd.Stdout = &out
	if err := a.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, a.NSAddr+"/30") || strings.Contains(s, a.HostAddr+"/") {
		t.Errorf("inside the namespace, ip addr shows:\n%s", s)
	}
	// This thread and the others are still in the host's namespace.
	host, _ := usedAddrs(ctx)
	if !contains(host, a.HostAddr) || contains(host, a.NSAddr) {
		t.Errorf("the host sees %v", host)
	}
	if _, err := exec.LookPath("ping"); err == nil {
		if out, err := exec.Command("ping", "-c", "1", "-W", "2", a.NSAddr).CombinedOutput(); err != nil {
			t.Errorf("ping %s: %v\n%s", a.NSAddr, err, out)
		}
	}
	for _, n := range []*Net{a, b} {
		if err := n.Remove(); err != nil {
			t.Fatal(err)
		}
		if Exists(n.Record) {
			t.Errorf("%s left behind", n.Name)
		}
		if err := n.Remove(); err != nil {
			t.Errorf("removing again: %v", err)
		}
	}
}

// TestRemoveRefusesStrangers: Remove touches only names of its own.
func TestRemoveRefusesStrangers(t *testing.T) {
	if err := Remove(Record{Name: "eth0", HostIf: "eth0"}); err == nil {
		t.Error("Remove accepted eth0")
	}
}

// TestUsable: a link with a delay is refused where the kernel has no
// netem, and accepted where it has.
func TestUsable(t *testing.T) {
	needRoot(t)
	why := Usable(context.Background(), Link{Delay: time.Millisecond})
	err := exec.Command("sh", "-c", "grep -qw sch_netem /proc/modules || [ -d /sys/module/sch_netem ]").Run()
	t.Logf("netem: %q", why)
	if err == nil && why != "" {
		t.Errorf("netem is loaded, but Usable says %q", why)
	}
	if why != "" && !strings.Contains(why, "netem") {
		t.Errorf("Usable says %q", why)
	}
}

func contains(as []netip.Addr, s string) bool {
	for _, a := range as {
		if a.String() == s {
			return true
		}
	}
	return false
}

// TestCreateAtOnce: Nets made at the same time get /30s of their own.
func TestCreateAtOnce(t *testing.T) {
	needRoot(t)
	const n = 4
	nets := make([]*Net, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nets[i], errs[i] = Create(context.Background(), "test-at-once", Link{}, nil)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, nt := range nets {
		if errs[i] != nil {
			t.Error(errs[i])
			continue
		}
		defer nt.Remove()
		if seen[nt.Subnet] {
			t.Errorf("subnet %s given twice", nt.Subnet)
		}
		seen[nt.Subnet] = true
	}
}
