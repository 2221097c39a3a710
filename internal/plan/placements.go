package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// The clients' placement (sut.placement: each with its transport, pooler
// and network), a matrix dimension; not the servers' storage and cores,
// which placement.go checks.

// placementNames are the names of sut.placement, none without it.
func placementNames(s *spec.Spec) []string {
	var out []string
	for _, p := range s.SUT.Placement {
		out = append(out, p.Name)
	}
	return out
}

// setNetworks gives each run its placement's link as checkNetworks
// chose it on this machine (the emulator), and the plan the one link
// of a spec without sut.placement.
func setNetworks(p *Plan, links map[string]*netns.Link) {
	for i := range p.Runs {
		p.Runs[i].Network = links[p.Runs[i].Placement]
	}
	if len(p.Dimensions.Placements) == 0 {
		p.Network = links[""]
	}
}

// placementPath is where the placement named name is written in the
// spec: "sut" for a spec without sut.placement, else
// "sut.placement[i]".
func (p *Plan) placementPath(name string) string {
	if p.Spec != nil {
		if _, i := p.Spec.SUT.PlacementOf(name); i >= 0 {
			return p.Spec.SUT.PlacementPath(i)
		}
	}
	return "sut"
}

// writePlacements says how the clients reach the servers: the pooler and
// the link of a spec without sut.placement, as ever, or each placement's
// transport, pooler and link in a line of its own.
func (p *Plan) writePlacements(w io.Writer) error {
	var b strings.Builder
	emulators := map[string]bool{}
	describe := func(l *netns.Link) {
		if d := netns.Describe(l.Emulator); d != "" && !emulators[l.Emulator] {
			emulators[l.Emulator] = true
			fmt.Fprintf(&b, "network emulator %s: %s\n", l.Emulator, d)
		}
	}
	if len(p.Dimensions.Placements) == 0 {
		if c := p.Pooler; c != nil {
			fmt.Fprintf(&b, "pooler in front of every server: %s, %s mode, pool of %d server connections per tenant; the workload's clients connect through it\n",
				c.Kind, c.Mode, c.PoolSize)
		}
		if l := p.Network; l != nil {
			fmt.Fprintf(&b, "network: the servers sit in a network namespace of each run, behind a link of %s; the clients cross it over TCP\n", l)
			describe(l)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("placement (how the workload's clients reach the servers; the placement column above):\n")
	var links []*netns.Link
	for _, name := range p.Dimensions.Placements {
		var r *Run
		for i := range p.Runs {
			if p.Runs[i].Placement == name {
				r = &p.Runs[i]
				break
			}
		}
		if r == nil {
			continue
		}
		parts := []string{"over " + r.Transport}
		if r.Transport == "tcp" && r.Network == nil {
			parts[0] += " (loopback)"
		}
		if c := r.Pooler; c != nil {
			parts = append(parts, fmt.Sprintf("through %s in front of every server (%s mode, pool of %d server connections per tenant)", c.Kind, c.Mode, c.PoolSize))
		} else {
			parts = append(parts, "direct to the servers")
		}
		if l := r.Network; l != nil {
			parts = append(parts, fmt.Sprintf("the servers in a network namespace of each run, behind a link of %s", l))
			links = append(links, l)
		}
		fmt.Fprintf(&b, "  %s: %s\n", name, strings.Join(parts, "; "))
	}
	for _, l := range links {
		describe(l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
