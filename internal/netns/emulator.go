package netns

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Auto is the emulator sut.network.emulator takes by default: netem
// where the kernel has it, else the queue emulator.
const Auto = "auto"

// emulator is one way of putting a link's delay, jitter and loss on a
// Net's veth pair, registered by name in emulators.
type emulator interface {
	// usable says why link cannot run here, "" when it can; it may try
	// the kernel in a namespace of its own.
	usable(ctx context.Context, link Link) string
	// describe says in a line how it emulates a link, for the plan.
	describe() string
	// start puts link on n once the veth pair is up and addressed,
	// telling note of each part before making it. Net.Remove (or Remove
	// of the record) undoes it.
	start(ctx context.Context, n *Net, note func(Record)) error
}

// emulators are the kinds sut.network.emulator names, in the order auto
// tries them.
var emulators = map[string]emulator{
	"netem": netem{},
	"queue": queue{},
}

var autoOrder = []string{"netem", "queue"}

// Emulators are the names sut.network.emulator takes: auto and each
// emulator's.
func Emulators() []string {
	names := []string{Auto}
	for n := range emulators {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	return names
}

// ChooseEmulator resolves name (Auto or "" for the default) for link on
// this machine: the emulator's name, or why none can run it. A plain
// link needs none: it resolves to "" (nothing is put on the veth pair).
// A rate alone is tc's on either emulator, so auto takes the first one
// usable.
func ChooseEmulator(ctx context.Context, name string, link Link) (string, string) {
	if link.Plain() {
		return "", ""
	}
	if name != "" && name != Auto {
		em, ok := emulators[name]
		if !ok {
			return "", fmt.Sprintf("emulator %q is not known: %s", name, strings.Join(Emulators(), ", "))
		}
		if why := em.usable(ctx, link); why != "" {
			return "", why
		}
		return name, ""
	}
	var whys []string
	for _, n := range autoOrder {
		why := emulators[n].usable(ctx, link)
		if why == "" {
			return n, ""
		}
		whys = append(whys, n+": "+why)
	}
	return "", strings.Join(whys, "; ")
}

// Describe says in a line how emulator name emulates a link, "" for
// none.
func Describe(name string) string {
	if em, ok := emulators[name]; ok {
		return em.describe()
	}
	return ""
}

// netem is tc netem on each end's egress: the kernel does everything,
// and reorders packets under jitter as netem does.
type netem struct{}

func (netem) usable(ctx context.Context, link Link) string {
	rec, remove, why := probeNamespace(ctx)
	if why != "" {
		return why
	}
	defer remove()
	err := run(ctx, "tc", append([]string{"-n", rec.Name, "qdisc", "add", "dev", "lo", "root"}, link.netemArgs()...)...)
	switch {
	case err == nil:
		return ""
	case strings.Contains(err.Error(), "qdisc kind is unknown"):
		return "this kernel has no netem qdisc (CONFIG_NET_SCH_NETEM, module sch_netem)"
	default:
		return "tc cannot put netem on a link: " + err.Error()
	}
}

// probeNamespace makes a network namespace for an emulator's usable to
// try itself in, and the function that removes it; or says why it cannot.
func probeNamespace(ctx context.Context) (rec Record, remove func(), why string) {
	rec, err := newRecord("probe")
	if err != nil {
		return rec, nil, err.Error()
	}
	if err := run(ctx, "ip", "netns", "add", rec.Name); err != nil {
		return rec, nil, "cannot make a network namespace: " + err.Error()
	}
	return rec, func() { run(context.Background(), "ip", "netns", "del", rec.Name) }, ""
}

func (netem) describe() string {
	return "tc netem on each end's egress (under jitter, netem may reorder packets)"
}

func (netem) start(ctx context.Context, n *Net, note func(Record)) error {
	for _, s := range [][]string{
		append([]string{"tc", "qdisc", "add", "dev", n.HostIf, "root"}, n.Link.netemArgs()...),
		append([]string{"tc", "-n", n.Name, "qdisc", "add", "dev", n.NSIf, "root"}, n.Link.netemArgs()...),
	} {
		if err := run(ctx, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}
