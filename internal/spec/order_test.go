package spec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const orderSpec = `name: o
seed: 7
repeat: 3
tenancy: {model: [schema, database, instance], tenants: [1, 2]}
workload: {name: tpcb}
`

// order is the (point, round) of each run, in plan order.
func order(p *Plan) []string {
	var out []string
	for _, r := range p.Runs {
		out = append(out, fmt.Sprintf("p%d/r%d", r.Point, r.Round))
	}
	return out
}

func TestOrderBlocked(t *testing.T) {
	p := mustExpand(t, orderSpec+"order: blocked\n")
	want := []string{"p1/r1", "p1/r2", "p1/r3", "p2/r1", "p2/r2", "p2/r3"}
	if got := order(p)[:6]; !reflect.DeepEqual(got, want) {
		t.Errorf("blocked order starts %v, want %v", got, want)
	}
	if p.Runs[3].Model != "schema" || p.Runs[3].Tenants != 2 || p.Runs[6].Model != "database" {
		t.Errorf("points are not in matrix order: %v", p.Runs[:7])
	}
}

func TestOrderInterleavedIsTheDefaultWithRepeat(t *testing.T) {
	for _, src := range []string{orderSpec, orderSpec + "order: interleaved\n"} {
		p := mustExpand(t, src)
		if got := p.Spec.RunOrder(); got != OrderInterleaved {
			t.Fatalf("order %s, want interleaved", got)
		}
		// Rounds alternate: matrix order, then reversed, then matrix
		// order again, so that a steady drift within rounds cancels.
		var want []string
		for round := 1; round <= 3; round++ {
			for k := 1; k <= 6; k++ {
				point := k
				if round == 2 {
					point = 7 - k
				}
				want = append(want, fmt.Sprintf("p%d/r%d", point, round))
			}
		}
		if got := order(p); !reflect.DeepEqual(got, want) {
			t.Errorf("interleaved order %v, want %v", got, want)
		}
		for i, r := range p.Runs {
			if r.Index != i+1 || r.ID != fmt.Sprintf("%03d", i+1) || r.Repetition != r.Round {
				t.Errorf("run %d: index %d, id %s, repetition %d, round %d", i+1, r.Index, r.ID, r.Repetition, r.Round)
			}
		}
	}
	if p := mustExpand(t, "name: o\nworkload: {name: tpcb}\n"); p.Spec.RunOrder() != OrderBlocked || !p.Spec.OrderDefaulted() {
		t.Errorf("without repeat the order is %s, want blocked by default", p.Spec.RunOrder())
	}
}

func TestOrderShuffled(t *testing.T) {
	a := mustExpand(t, orderSpec+"order: shuffled\n")
	b := mustExpand(t, orderSpec+"order: shuffled\n")
	if !reflect.DeepEqual(order(a), order(b)) || !reflect.DeepEqual(a.Runs, b.Runs) {
		t.Fatalf("shuffling is not deterministic:\n%v\n%v", order(a), order(b))
	}
	// Each round holds every point once, rounds one after the other.
	for round := 1; round <= 3; round++ {
		seen := map[int]bool{}
		for _, r := range a.Runs[(round-1)*6 : round*6] {
			if r.Round != round || seen[r.Point] {
				t.Fatalf("round %d: %v", round, order(a))
			}
			seen[r.Point] = true
		}
	}
	// Not the interleaved order, and each round its own order.
	inter := order(mustExpand(t, orderSpec+"order: interleaved\n"))
	if reflect.DeepEqual(order(a), inter) {
		t.Errorf("shuffled order is the interleaved order: %v", inter)
	}
	points := func(p *Plan, round int) string {
		var s []string
		for _, r := range p.Runs[(round-1)*6 : round*6] {
			s = append(s, fmt.Sprint(r.Point))
		}
		return strings.Join(s, ",")
	}
	if points(a, 1) == points(a, 2) && points(a, 2) == points(a, 3) {
		t.Errorf("every round has the same order %s", points(a, 1))
	}
	// Another seed, another order.
	c := mustExpand(t, strings.Replace(orderSpec, "seed: 7", "seed: 8", 1)+"order: shuffled\n")
	if reflect.DeepEqual(order(a), order(c)) {
		t.Errorf("seeds 7 and 8 shuffle alike: %v", order(a))
	}
}

func TestOrderProblems(t *testing.T) {
	_, problems := Parse([]byte(orderSpec + "order: interleave\nprobe: {every: rounds, what: cpu}\n"))
	got := joinProblems(problems)
	for _, want := range []string{
		"order (line 6): interleave: must be one of blocked, interleaved, shuffled",
		"did you mean interleaved?",
		"probe.every (line 7): rounds: must be run or round",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q:\n%s", want, got)
		}
	}
}

func TestProbeDefaultsAndRoundTrip(t *testing.T) {
	s := mustParse(t, orderSpec+"order: shuffled\nprobe: {what: tpcb}\n")
	if s.Probe == nil || s.Probe.Every != ProbeEveryRun || s.Probe.What != ProbeTPCB {
		t.Errorf("probe = %+v, want every run, tpcb", s.Probe)
	}
	out := string(roundTrip(t, s))
	if !strings.Contains(out, "order: shuffled\n") || !strings.Contains(out, "probe:\n  every: run\n  what: tpcb\n") {
		t.Errorf("resolved spec lacks order or probe:\n%s", out)
	}
}
