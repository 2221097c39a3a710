package netns

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Prefix begins the name of every namespace and veth interface this
// package makes, so that they can be told from the machine's own.
const Prefix = "tb"

// Record is what exists of a Net, for the run's ledger: enough for
// Remove to find and delete it from another process (`tenantbench
// down`). It is written before each part is made.
type Record struct {
	Name     string `json:"name"`      // the namespace: "tb-<run>-<random>"
	HostIf   string `json:"host_if"`   // the veth end on the host
	NSIf     string `json:"ns_if"`     // the veth end in the namespace
	Subnet   string `json:"subnet"`    // a /30 of Pool, "" until allocated
	HostAddr string `json:"host_addr"` // the host end's address: the clients'
	NSAddr   string `json:"ns_addr"`   // the namespace end's: the servers'
	// Emulator is the link's ("netem", "queue"; "" for a plain link).
	Emulator string `json:"emulator,omitempty"`
	// Queue is the queue emulator's NFQUEUE of packets into the
	// namespace, Queue+1 of those out of it: taken with the /30, under
	// the same lock, so no two Nets share one (0 for none).
	Queue int `json:"queue,omitempty"`
	// Delayer is the queue emulator's process, nil for none.
	Delayer *Delayer `json:"delayer,omitempty"`
}

// Net is a namespace joined to the host by a veth pair with the link's
// emulator on it.
type Net struct {
	Record
	Link Link
	proc *delayerProc // the queue emulator's delayer, when this process started it
}

// nameRE is what a namespace name may be: Prefix, the run's id, a random
// part (two runs of one id, two tests, never share one).
var nameRE = regexp.MustCompile(`^` + Prefix + `-[A-Za-z0-9_.-]{1,40}-[0-9a-f]{8}$`)

// ifRE is what a veth end may be called (at most 15 bytes, IFNAMSIZ).
var ifRE = regexp.MustCompile(`^` + Prefix + `[0-9a-f]{8}[hn]$`)

// newRecord names the namespace and veth ends of a Net of run id.
func newRecord(id string) (Record, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return Record{}, err
	}
	r := hex.EncodeToString(b)
	id = strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
			return c
		}
		return '_'
	}, id)
	if len(id) > 40 {
		id = id[:40]
	}
	if id == "" {
		id = "run"
	}
	return Record{Name: Prefix + "-" + id + "-" + r, HostIf: Prefix + r + "h", NSIf: Prefix + r + "n"}, nil
}

// Create makes the Net of run id with link: the namespace, the veth
// pair with a free /30 of Pool (host end .1, namespace end .2),
// loopback up in the namespace, and the link's emulator on both ends
// unless the link is plain (link.Emulator "" or Auto: chosen here, see
// ChooseEmulator; the Net's Link and Record name the one used). note is told of the record before each part is made (a
// ledger), so that a process killed meanwhile leaves it findable. On
// any error, Create removes what it made.
func Create(ctx context.Context, id string, link Link, note func(Record)) (n *Net, err error) {
	rec, err := newRecord(id)
	if err != nil {
		return nil, err
	}
	if link.Plain() {
		link.Emulator = ""
	} else if link.Emulator == "" || link.Emulator == Auto {
		name, why := ChooseEmulator(ctx, link.Emulator, link)
		if why != "" {
			return nil, fmt.Errorf("sut.network %s cannot run here: %s", link, why)
		}
		link.Emulator = name
	}
	em, ok := emulators[link.Emulator]
	if !link.Plain() && !ok {
		return nil, fmt.Errorf("emulator %q is not known: %s", link.Emulator, strings.Join(Emulators(), ", "))
	}
	rec.Emulator = link.Emulator
	n = &Net{Record: rec, Link: link}
	if note == nil {
		note = func(Record) {}
	}
	note(n.Record)
	defer func() {
		if err != nil {
			if rerr := Remove(n.Record); rerr != nil {
				err = errors.Join(err, fmt.Errorf("removing it again: %w", rerr))
			}
			err = fmt.Errorf("network namespace %s: %w", n.Name, err)
		}
	}()
	if err := run(ctx, "ip", "netns", "add", n.Name); err != nil {
		return n, err
	}
	// The veth pair is made with its second end in the namespace at once.
	if err := run(ctx, "ip", "link", "add", n.HostIf, "type", "veth", "peer", "name", n.NSIf, "netns", n.Name); err != nil {
		return n, err
	}
	if err := n.address(ctx, note); err != nil {
		return n, err
	}
	steps := [][]string{
		{"ip", "link", "set", n.HostIf, "up"},
		{"ip", "-n", n.Name, "addr", "add", n.NSAddr + "/30", "dev", n.NSIf},
		{"ip", "-n", n.Name, "link", "set", n.NSIf, "up"},
		{"ip", "-n", n.Name, "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := run(ctx, s[0], s[1:]...); err != nil {
			return n, err
		}
	}
	if !link.Plain() {
		if err := em.start(ctx, n, note); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Remove deletes what r records: the delayer, its cgroup and files,
// then the namespace (its veth end, iptables rules and qdisc go with it,
// and the pair and the host end's qdisc with that) and the host end,
// should the pair not have been made whole. Something already gone is
// no error; a name that is not this package's is not touched.
func Remove(r Record) error {
	if !nameRE.MatchString(r.Name) || !ifRE.MatchString(r.HostIf) {
		return fmt.Errorf("network %q (veth %q) is not tenantbench's; not touching it", r.Name, r.HostIf)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if r.Delayer != nil {
		// Before the namespace: a process in it keeps it alive.
		if err := endDelayer(r.Delayer); err != nil {
			errs = append(errs, err)
		}
	}
	if exists(filepath.Join(nsDir, r.Name)) {
		if err := run(ctx, "ip", "netns", "del", r.Name); err != nil {
			errs = append(errs, err)
		}
	}
	if exists(filepath.Join("/sys/class/net", r.HostIf)) {
		if err := run(ctx, "ip", "link", "del", r.HostIf); err != nil && exists(filepath.Join("/sys/class/net", r.HostIf)) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Remove deletes the Net (Remove of its record), first asking its
// delayer to end and keeping its last counts (DelayerCounts).
func (n *Net) Remove() error {
	if n.proc != nil && n.Delayer != nil {
		n.proc.stop(n.Delayer)
	}
	return Remove(n.Record)
}

// Exists says whether anything r records is still there: the namespace,
// the host's veth end, or the delayer.
func Exists(r Record) bool {
	if d := r.Delayer; d != nil && (d.Pid > 0 && d.Start != 0 && startTime(d.Pid) == d.Start || d.Dir != "" && exists(d.Dir)) {
		return true
	}
	return exists(filepath.Join(nsDir, r.Name)) || exists(filepath.Join("/sys/class/net", r.HostIf))
}

// nsDir is where `ip netns add` binds a namespace by name.
const nsDir = "/run/netns"

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// run runs an iproute2 command; its error carries the command's output.
func run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("%s not found: install iproute2", name)
		}
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Pool is the address block every Net's /30 comes from (RFC 5737's
// TEST-NET-2: never routed, so no real host is shadowed).
var Pool = netip.MustParsePrefix("198.51.100.0/24")

// lockFile serialises the choice of a free /30 between processes: one
// path for the whole machine (/run/lock, root's), never below TMPDIR,
// which two runs may set apart.
func lockFile() string {
	for _, d := range []string{"/run/lock", "/run"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return filepath.Join(d, "tenantbench-netns.lock")
		}
	}
	return filepath.Join(os.TempDir(), "tenantbench-netns.lock")
}

// address gives the veth pair a /30 of Pool that no interface of the
// host has an address in, under a lock held until the host end has its
// address (which is then what tells the next one the /30 is taken).
func (n *Net) address(ctx context.Context, note func(Record)) error {
	f, err := os.OpenFile(lockFile(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	used, err := usedAddrs(ctx)
	if err != nil {
		return err
	}
	sub, ok := freeSubnet(used)
	if !ok {
		return fmt.Errorf("no free /30 left in %s: every one has an address on this host (ip -o addr)", Pool)
	}
	host := sub.Addr().Next()
	n.Subnet, n.HostAddr, n.NSAddr = sub.String(), host.String(), host.Next().String()
	if n.Emulator == "queue" {
		n.Queue = queueBase + 2*int(sub.Addr().As4()[3]/4)
	}
	note(n.Record)
	return run(ctx, "ip", "addr", "add", n.HostAddr+"/30", "dev", n.HostIf)
}

// usedAddrs are the IPv4 addresses of the host's interfaces (ip -o -4
// addr).
func usedAddrs(ctx context.Context) ([]netip.Addr, error) {
	cmd := exec.CommandContext(ctx, "ip", "-o", "-4", "addr", "show")
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, errors.New("ip not found: install iproute2")
		}
		return nil, fmt.Errorf("ip -o -4 addr show: %w", err)
	}
	return parseAddrs(string(out)), nil
}

// parseAddrs reads the addresses of `ip -o -4 addr show`: the word after
// "inet" on each line, "198.51.100.1/30".
func parseAddrs(out string) []netip.Addr {
	var addrs []netip.Addr
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if f[i] != "inet" {
				continue
			}
			if p, err := netip.ParsePrefix(f[i+1]); err == nil {
				addrs = append(addrs, p.Addr())
			}
		}
	}
	return addrs
}

// freeSubnet is the first /30 of Pool holding none of used.
func freeSubnet(used []netip.Addr) (netip.Prefix, bool) {
	for a := Pool.Addr(); Pool.Contains(a); {
		sub := netip.PrefixFrom(a, 30)
		taken := false
		for _, u := range used {
			if sub.Contains(u) {
				taken = true
				break
			}
		}
		if !taken {
			return sub, true
		}
		for range 4 {
			a = a.Next()
		}
	}
	return netip.Prefix{}, false
}
