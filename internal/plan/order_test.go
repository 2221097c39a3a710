package plan

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

const orderSpec = `name: o
seed: 3
repeat: 2
tenancy: {model: [database, schema], tenants: 3}
workload: {name: tpcb}
`

// TestOrderInPlan: the plan's runs are in the spec's order, plan.json
// records the order and each run's round and point, and every order loads
// as much as the blocked one.
func TestOrderInPlan(t *testing.T) {
	for _, c := range []struct {
		order, want string // want: point/round of each run
	}{
		{"blocked", "1/1 1/2 2/1 2/2"},
		{"interleaved", "1/1 2/1 2/2 1/2"}, // the second round reversed
		{"", "1/1 2/1 2/2 1/2"},            // the default with repeat 2
		{"shuffled", ""},                   // checked below
	} {
		src := orderSpec
		if c.order != "" {
			src += "order: " + c.order + "\n"
		}
		p := mustBuild(t, src)
		dir := t.TempDir()
		if err := p.Write(dir); err != nil {
			t.Fatal(err)
		}
		back, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, r := range back.Runs {
			got = append(got, fmt.Sprintf("%d/%d", r.Point, r.Round))
			if r.ID != fmt.Sprintf("%03d", i+1) {
				t.Errorf("%s: run %d has ID %s", c.order, i+1, r.ID)
			}
		}
		if want := map[string]string{"": "interleaved"}[c.order]; want != "" && (back.Order != want || !back.OrderDefault) {
			t.Errorf("default order read back as %q (default %v)", back.Order, back.OrderDefault)
		} else if want == "" && back.Order != c.order {
			t.Errorf("order read back as %q, want %q", back.Order, c.order)
		}
		if c.want != "" && strings.Join(got, " ") != c.want {
			t.Errorf("%s order: runs %v, want %s", c.order, got, c.want)
		}
		// database clones (1 tenant loads, 2 copies), schema loads all 3:
		// 2 x 1 + 2 x 3 tenant loads, in every order.
		if l := back.Loads; l.Runs != 4 || l.Tenants != 8 || l.Reloads != 0 {
			t.Errorf("%s order: loads %+v, want 4 runs, 8 tenant loads, 0 reloads", c.order, l)
		}
		var b bytes.Buffer
		if err := p.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "(8 tenant loads in 4 runs, 4 by copy); the "+back.Order+" order forces 0 reload(s)") {
			t.Errorf("the plan table does not count the loads:\n%s", b.String())
		}
	}
}

// TestBlockedOrderOfRuns: the reference loadsOf counts reloads against
// puts each point's rounds back to back.
func TestBlockedOrderOfRuns(t *testing.T) {
	p := mustBuild(t, orderSpec+"order: shuffled\n")
	b := blockedOrder(p.Runs)
	for i := 1; i < len(b); i++ {
		if b[i].Point < b[i-1].Point || b[i].Point == b[i-1].Point && b[i].Round <= b[i-1].Round {
			t.Fatalf("not blocked: %+v", b)
		}
	}
}

func TestProbeInPlan(t *testing.T) {
	p := mustBuild(t, orderSpec+"probe: {every: round, what: cpu}\n")
	if p.Probe == nil || !p.Probe.EveryRound() || p.Probe.What != "cpu" {
		t.Fatalf("probe = %+v", p.Probe)
	}
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "probe: cpu, before every round") {
		t.Errorf("the plan table does not say the probe:\n%s", b.String())
	}
}

// TestProbeNeedsTPCB: a tpcb probe without the tpcb workload is refused at
// plan, on its line.
func TestProbeNeedsTPCB(t *testing.T) {
	regs := Builtin(workload.Registry{})
	regs.Workloads.Add(tpcc.Factory())
	_, problems := BuildBytes([]byte("name: p\nprobe: {what: tpcb}\nworkload: {name: tpcc}\n"), regs)
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	if want := "probe.what (line 2): tpcb: needs the tpcb workload, which this tenantbench does not have; use cpu"; !slices.Contains(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
}

// TestInterleavedCancelsDriftWithinRounds: two identical points on a
// machine that speeds up 2 % per run slot, steadily, so that the drift
// within a round is as large as between rounds. Compared round by round
// in the plan's interleaved order (every second round reversed), the
// paired interval holds 1; had every round run in matrix order, the later
// point would gain one slot's drift in every round, a false 2 % effect
// with no spread to widen the interval.
func TestInterleavedCancelsDriftWithinRounds(t *testing.T) {
	src := strings.Replace(orderSpec, "repeat: 2", "repeat: 4", 1) + "order: interleaved\n"
	p := mustBuild(t, src)
	speed := func(slot int) float64 { return 1000 * (1 + 0.02*float64(slot)) }
	a, b := make([]float64, 4), make([]float64, 4)
	var forwardA, forwardB []float64
	for i, r := range p.Runs {
		tps := speed(i)
		if r.Point == 1 {
			a[r.Round-1] = tps
		} else {
			b[r.Round-1] = tps
		}
	}
	for round := range 4 {
		forwardA = append(forwardA, speed(2*round))
		forwardB = append(forwardB, speed(2*round+1))
	}
	c, err := metrics.Paired(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if c.Differs() || math.Abs(c.Ratio-1) > 0.005 {
		t.Errorf("interleaved: paired B/A %.4f [%.4f, %.4f], want no difference", c.Ratio, c.Low, c.High)
	}
	f, _ := metrics.Paired(forwardA, forwardB, 0.95)
	if !f.Differs() {
		t.Errorf("rounds all in matrix order: paired B/A %.4f [%.4f, %.4f]; the test no longer shows the bias it guards against", f.Ratio, f.Low, f.High)
	}
}
