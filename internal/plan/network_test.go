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
		{"sut:\n  transport: unix\n  network: {}\n", "sut.transport (line 4) unix: must be tcp with sut.network", root},
		{"sut:\n  network: {}\n", "sut.network (line 4) plain (no netem): cannot run here: needs root", big},
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

// TestNetworkInPlan: a valid sut.network is in plan.json and the plan's
// table on a machine where it can run; where it cannot (no netem in the
// kernel), the plan says why.
func TestNetworkInPlan(t *testing.T) {
	link := netns.Link{Delay: 1e6, Jitter: 2e5, Rate: 1e9}
	why := netns.Usable(context.Background(), link)
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
	if want := `"network":{"delay_ns":1000000,"jitter_ns":200000,"loss_pct":0,"rate_bit_s":1000000000}`; !strings.Contains(string(b), want) {
		t.Errorf("plan.json lacks %s", want)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "behind a link of delay 1ms, jitter 200µs, rate 1gbit each way") {
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
