package plan

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// checkNetwork checks sut.network: a rate tc reads, a jitter no larger
// than the delay, a provider that can place servers behind a link (not
// the user's servers: they are where they are), clients over TCP (a unix
// socket would not cross the link), and a machine where it can run: root,
// iproute2, and netem in the kernel for a link that is not plain. The
// decoder refused negative durations and a loss outside 0..100 % with
// their lines. It returns the link the runs ask for, nil for none.
func checkNetwork(s *spec.Spec, regs Registries, m Machine) (*netns.Link, []spec.Problem) {
	nw := s.SUT.Network
	if nw == nil {
		return nil, nil
	}
	var out []spec.Problem
	if nw.Rate != "" {
		if _, err := netns.ParseRate(nw.Rate); err != nil {
			out = append(out, spec.Problem{Path: "sut.network.rate", Value: spec.Shown(nw.Rate), Allowed: err.Error()})
		}
	}
	link := *networkOf(s)
	if link.Jitter > link.Delay {
		out = append(out, spec.Problem{Path: "sut.network.jitter", Value: nw.Jitter.String(), Allowed: fmt.Sprintf(
			"must be at most the delay (%s): netem draws each packet's delay from delay ± jitter", nw.Delay)})
	}
	if f, ok := regs.Providers[s.SUT.Provider]; ok && !f.Networks {
		out = append(out, spec.Problem{Path: "sut.network", Value: link.String(), Allowed: "provider " + s.SUT.Provider +
			" cannot place servers behind an emulated link (its servers are where they are); remove sut.network"})
	}
	if s.SUT.Transport != "tcp" {
		out = append(out, spec.Problem{Path: "sut.transport", Value: s.SUT.Transport,
			Allowed: "must be tcp with sut.network: the clients reach the servers across the link, a unix socket would not cross it"})
	}
	if len(out) == 0 {
		if why := m.networkUsable(link); why != "" {
			out = append(out, spec.Problem{Path: "sut.network", Value: link.String(), Allowed: "cannot run here: " + why})
		}
	}
	if len(out) > 0 {
		return nil, out
	}
	return &link, nil
}

// networkUsable says why a link cannot run on m, "" when it can: the
// machine's own figure for root, then netns.Usable (iproute2, netem).
func (m Machine) networkUsable(link netns.Link) string {
	if !m.Root {
		return "needs root: tenantbench makes a network namespace, a veth pair and tc qdiscs"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return netns.Usable(ctx, link)
}

// networkOf is the checked sut.network as plan.json records it.
func networkOf(s *spec.Spec) *netns.Link {
	nw := s.SUT.Network
	if nw == nil {
		return nil
	}
	rate, _ := netns.ParseRate(nw.Rate) // checked: "" is 0
	return &netns.Link{Delay: nw.Delay.D(), Jitter: nw.Jitter.D(), Loss: nw.Loss, Rate: rate}
}
