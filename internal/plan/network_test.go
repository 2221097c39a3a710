package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/netns"
)

// TestNetworkProblems: sut.network's bad values are named on their line
// (a negative delay, a loss over 100 %, a rate tc cannot read, a jitter
// over the delay), and so are a provider whose servers are the user's,
// clients over a unix socket and a machine where it cannot run (not
// root).
func TestNetworkProblems(t *testing.T) {
	root := big
	root.Root = true
	for _, c := range []struct {
		src, want string
		m         Machine
	}{
		{"sut:\n  network:\n    delay: -1ms\n", "sut.network.delay (line 5) -1ms: must be a duration of 0 or more", root},
		{"sut:\n  network: {loss: 120%}\n", "sut.network.loss (line 4) 120%: must be a percentage from 0 to 100", root},
		{"sut:\n  network:\n    rate: 1gigabit\n", "sut.network.rate (line 5) 1gigabit: must be a positive number with one of tc's units", root},
		{"sut:\n  network: {delay: 1ms, jitter: 2ms}\n", "sut.network.jitter (line 4) 2ms: must be at most the delay (1ms)", root},
		{"sut:\n  network: {delai: 1ms}\n", "sut.network.delai (line 4) : unknown key", root},
		{"sut:\n  network: {delay: 1ms, emulator: quue}\n", "sut.network.emulator (line 4) quue: must be one of auto, netem, queue; did you mean queue?", root},
		{"sut:\n  transport: unix\n  network: {}\n", "sut.transport (line 4) unix: must be tcp with sut.network", root},
		{"sut:\n  network: {}\n", "sut.network (line 4) plain (no emulator): cannot run here: needs root", big},
		{"sut:\n  provider: external\n  servers: [{name: a, dsn_env: TB_NO_SUCH_DSN}]\n  network: {delay: 1ms}\n",
			"sut.network (line 6) delay 1ms each way: provider external cannot place servers behind an emulated link", root},
	} {
		_, problems := buildSrc(t, minimal+c.src, c.m)
		var got []string
		for _, p := range problems {
			got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
		}
		if text := strings.Join(got, "\n"); !strings.Contains(text, c.want) {
			t.Errorf("%q: no %q in:\n%s", c.src, c.want, text)
		}
	}
}

// TestNetworkInPlan: a valid sut.network is in plan.json, with the
// emulator auto chose on this machine, and in the plan's table on a
// machine where it can run; where it cannot, the plan says why.
func TestNetworkInPlan(t *testing.T) {
	link := netns.Link{Delay: 1e6, Jitter: 2e5, Rate: 1e9}
	why := netns.Usable(context.Background(), link)
	em, _ := netns.ChooseEmulator(context.Background(), netns.Auto, link)
	if strings.HasPrefix(why, "needs root") {
		t.Skip("sut.network: " + why)
	}
	root := big
	root.Root = true
	p, problems := buildSrc(t, minimal+"sut:\n  network: {delay: 1ms, jitter: 0.2ms, loss: 0%, rate: 1gbit}\n", root)
	if why != "" {
		if len(problems) != 1 || problems[0].Path != "sut.network" || problems[0].Allowed != "cannot run here: "+why {
			t.Errorf("where %s, the plan says %v", why, problems)
		}
		return
	}
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	b, _ := json.Marshal(p)
	if want := `"network":{"delay_ns":1000000,"jitter_ns":200000,"loss_pct":0,"rate_bit_s":1000000000,"emulator":"` + em + `"}`; !strings.Contains(string(b), want) {
		t.Errorf("plan.json lacks %s", want)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "behind a link of delay 1ms, jitter 200µs, rate 1gbit each way ("+em+")") {
		t.Errorf("the table says:\n%s", table.String())
	}
}

// TestPlainNetworkInPlan: `network: {}` is a plain link, which runs
// without netem.
func TestPlainNetworkInPlan(t *testing.T) {
	if why := netns.Usable(context.Background(), netns.Link{}); why != "" {
		t.Skip("sut.network: " + why)
	}
	root := big
	root.Root = true
	p, problems := buildSrc(t, minimal+"sut:\n  network: {}\n", root)
	if len(problems) > 0 || p.Network == nil || !p.Network.Plain() {
		t.Fatalf("%v %+v", problems, p)
	}
}

// TestNetworkEmulatorAsked: an emulator named in the spec is the one the
// plan records, and one the machine cannot run is refused at plan with
// its reason.
func TestNetworkEmulatorAsked(t *testing.T) {
	if why := netns.Usable(context.Background(), netns.Link{}); why != "" {
		t.Skip("sut.network: " + why)
	}
	root := big
	root.Root = true
	for _, em := range []string{"netem", "queue"} {
		link := netns.Link{Delay: 1e6, Emulator: em}
		_, why := netns.ChooseEmulator(context.Background(), em, link)
		p, problems := buildSrc(t, minimal+"sut:\n  network: {delay: 1ms, emulator: "+em+"}\n", root)
		switch {
		case why == "" && (len(problems) > 0 || p.Network.Emulator != em):
			t.Errorf("emulator %s: %v %+v", em, problems, p)
		case why != "" && (len(problems) != 1 || !strings.Contains(problems[0].Allowed, why)):
			t.Errorf("emulator %s cannot run (%s), yet the plan says %v", em, why, problems)
		}
	}
}
