package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// checkNetworks checks the network of each placement (spec.SUT.Placements:
// sut.network, or each of sut.placement's) and returns each placement's
// link by its name, with the emulator chosen here; a placement without a
// network has none.
func checkNetworks(s *spec.Spec, regs Registries, m Machine) (map[string]*netns.Link, []spec.Problem) {
	links := map[string]*netns.Link{}
	var out []spec.Problem
	for i, pl := range s.SUT.Placements() {
		link, bad := checkNetwork(s, pl, s.SUT.PlacementPath(i), regs, m)
		out = append(out, bad...)
		if link != nil {
			links[pl.Name] = link
		}
	}
	return links, out
}

// checkNetwork checks the network of placement pl, written at path
// ("sut" or "sut.placement[1]"): a rate tc reads, a jitter no larger
// than the delay, an emulator netns knows, a provider that can place
// servers behind a link (not the user's servers: they are where they
// are), clients over TCP (a unix socket would not cross the link), and a
// machine where it can run: root, iproute2, and for a link that is not
// plain the emulator asked for (auto: netem, else the queue emulator).
// The decoder refused negative durations and a loss outside 0..100 %
// with their lines. It returns the link the placement's runs ask for,
// with the emulator chosen here, nil for none.
func checkNetwork(s *spec.Spec, pl spec.Placement, path string, regs Registries, m Machine) (*netns.Link, []spec.Problem) {
	nw := pl.Network
	if nw == nil {
		return nil, nil
	}
	at := func(key string) string { return spec.Join(path, key) }
	var out []spec.Problem
	if nw.Rate != "" {
		if _, err := netns.ParseRate(nw.Rate); err != nil {
			out = append(out, spec.Problem{Path: at("network.rate"), Value: spec.Shown(nw.Rate), Allowed: err.Error()})
		}
	}
	link := *networkOf(nw)
	if e := nw.Emulator; e != "" && !slices.Contains(netns.Emulators(), e) {
		out = append(out, spec.Problem{Path: at("network.emulator"), Value: e, Allowed: "must be one of " +
			strings.Join(netns.Emulators(), ", ") + spec.Suggest(e, netns.Emulators())})
	}
	if link.Jitter > link.Delay {
		out = append(out, spec.Problem{Path: at("network.jitter"), Value: nw.Jitter.String(), Allowed: fmt.Sprintf(
			"must be at most the delay (%s): netem draws each packet's delay from delay ± jitter", nw.Delay)})
	}
	if f, ok := regs.Providers[s.SUT.Provider]; ok && !f.Networks {
		out = append(out, spec.Problem{Path: at("network"), Value: link.String(), Allowed: "provider " + s.SUT.Provider +
			" cannot place servers behind an emulated link (its servers are where they are); remove " + at("network")})
	}
	if pl.Transport != "tcp" {
		out = append(out, spec.Problem{Path: at("transport"), Value: pl.Transport,
			Allowed: "must be tcp with " + at("network") + ": the clients reach the servers across the link, a unix socket would not cross it"})
	}
	if len(out) == 0 {
		name, why := m.networkUsable(link)
		if why != "" {
			out = append(out, spec.Problem{Path: at("network"), Value: link.String(), Allowed: "cannot run here: " + why})
		}
		link.Emulator = name
	}
	if len(out) > 0 {
		return nil, out
	}
	return &link, nil
}

// networkUsable is the emulator that runs link on m ("" for a plain
// link), or why none can: the machine's own figure for root, then
// netns.Usable's checks (iproute2) and netns.ChooseEmulator.
func (m Machine) networkUsable(link netns.Link) (string, string) {
	if !m.Root {
		return "", "needs root: tenantbench makes a network namespace, a veth pair and tc qdiscs"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if why := netns.Usable(ctx, netns.Link{}); why != "" {
		return "", why
	}
	name, why := netns.ChooseEmulator(ctx, link.Emulator, link)
	if why != "" && link.Emulator != "" && link.Emulator != netns.Auto {
		// The one asked for cannot; say which can.
		if other, no := netns.ChooseEmulator(ctx, netns.Auto, link); no == "" {
			why += "; emulator " + other + " (or auto) can run it here"
		}
	}
	return name, why
}

// networkOf is a checked network as plan.json records it, nil for none.
func networkOf(nw *spec.Network) *netns.Link {
	if nw == nil {
		return nil
	}
	rate, _ := netns.ParseRate(nw.Rate) // checked: "" is 0
	return &netns.Link{Delay: nw.Delay.D(), Jitter: nw.Jitter.D(), Loss: nw.Loss, Rate: rate, Emulator: nw.Emulator}
}
