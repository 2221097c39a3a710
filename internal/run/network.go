package run

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// openNetwork makes the run's network namespace and emulated link
// (sut.network) through the provider, which owns where servers run,
// before any server starts: the instance specs place every server (and
// pooler) in it. The ledger hears of each part before it is made.
func (e *execution) openNetwork(ctx context.Context) error {
	link := e.run.Network // its placement's
	if link == nil || e.net != nil {
		return nil
	}
	nw, ok := e.opts.Provider.(provider.Networker)
	if !ok {
		return fmt.Errorf("provider %s cannot place servers behind an emulated link (sut.network)", e.plan.Provider)
	}
	var last netns.Record
	n, err := nw.Network(ctx, e.run.ID, *link, func(r netns.Record) {
		last = r
		e.opts.Ledger.NetworkLive(r)
	})
	if err != nil {
		if last.Name != "" && !netns.Exists(last) {
			e.opts.Ledger.NetworkGone(last) // removed again by Create
		}
		return err
	}
	e.net = n
	e.logf("network namespace %s: servers at %s behind a link of %s, clients at %s", n.Name, n.NSAddr, n.Link, n.HostAddr)
	// A dead delayer drops every packet from then on: the run ends at
	// once saying why, rather than waiting for its clients to time out.
	if died := n.Died(); died != nil && e.abort != nil {
		go func() {
			select {
			case <-died:
				e.abort(n.DelayerErr())
			case <-ctx.Done():
			}
		}()
	}
	return nil
}

// networkErrors names the run's delayer if it died during the run.
func (e *execution) networkErrors() []error {
	if e.net == nil {
		return nil
	}
	if err := e.net.DelayerErr(); err != nil {
		return []error{fmt.Errorf("sut.network: %w; every packet across the link was dropped from then on", err)}
	}
	return nil
}

// closeNetwork removes the run's namespace, its veth pair and qdiscs,
// once its servers have stopped.
func (e *execution) closeNetwork() error {
	if e.net == nil {
		return nil
	}
	if err := e.net.Remove(); err != nil {
		return fmt.Errorf("removing network namespace %s: %w", e.net.Name, err)
	}
	e.opts.Ledger.NetworkGone(e.net.Record)
	if st, ok := e.net.DelayerCounts(); ok {
		e.logf("delayer of %s: into the namespace %d packets passed, %d dropped; out of it %d passed, %d dropped",
			e.net.Name, st.In.Passed, st.In.Dropped, st.Out.Passed, st.Out.Dropped)
	}
	return nil
}

// NetworkLive records a network namespace of a run as it is made (again
// as each part is added), so that a tenantbench killed meanwhile leaves
// it for down.
func (l *Ledger) NetworkLive(r netns.Record) {
	l.change(func(b *LiveBook) { b.Networks = append(dropNetwork(b.Networks, r.Name), r) })
}

// NetworkGone forgets a network namespace that has been removed.
func (l *Ledger) NetworkGone(r netns.Record) {
	l.change(func(b *LiveBook) { b.Networks = dropNetwork(b.Networks, r.Name) })
}

func dropNetwork(rs []netns.Record, name string) []netns.Record {
	var out []netns.Record
	for _, r := range rs {
		if r.Name != name {
			out = append(out, r)
		}
	}
	return out
}

// NetworkEnv is env.json's record of sut.network: the link, and the
// first run's namespace and addresses (each run has its own, made when it
// starts and removed when it ends; the
// clients' address is the host's end of the veth pair, the servers' the
// namespace's end).
type NetworkEnv struct {
	netns.Link
	Namespace  string `json:"namespace"`
	Subnet     string `json:"subnet"`
	ClientAddr string `json:"client_addr"`
	ServerAddr string `json:"server_addr"`
	// Queue and Delayer: the queue emulator's first NFQUEUE and its
	// delayer's counts over the run (packets passed and dropped each
	// way), absent with netem or a plain link.
	Queue   int                  `json:"queue,omitempty"`
	Delayer *netns.DelayerStatus `json:"delayer,omitempty"`
}

func networkEnv(n *netns.Net) *NetworkEnv {
	if n == nil {
		return nil
	}
	env := &NetworkEnv{Link: n.Link, Namespace: n.Name, Subnet: n.Subnet, ClientAddr: n.HostAddr, ServerAddr: n.NSAddr, Queue: n.Queue}
	if st, ok := n.DelayerCounts(); ok {
		env.Delayer = &st
	}
	return env
}
