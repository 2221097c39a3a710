package spec

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

const twoPlacements = `name: t
sut:
  placement:
    - {name: local, transport: unix}
    - {name: remote, pooler: {kind: pgbouncer, mode: transaction}, network: {delay: 0.25ms}}
workload: {name: tpcb, clients: [1, 2]}
`

// TestPlacements: sut.placement reads each placement's name, transport
// (tcp when unwritten), pooler (its defaults filled) and network; it is a
// matrix dimension after cpu_policy, each run naming its placement; the
// plan's table has its column; it survives the resolved spec's round
// trip.
func TestPlacements(t *testing.T) {
	s := mustParse(t, twoPlacements)
	ps := s.SUT.Placements()
	if len(ps) != 2 || ps[0].Name != "local" || ps[0].Transport != "unix" || ps[0].Pooler != nil || ps[0].Network != nil {
		t.Fatalf("placements %+v", ps)
	}
	r := ps[1]
	if r.Name != "remote" || r.Transport != "tcp" || r.Pooler == nil || r.Pooler.Mode != "transaction" ||
		r.Pooler.PoolSize != PoolerDefaults.PoolSize || r.Network == nil || r.Network.Delay.D() != 250*time.Microsecond {
		t.Fatalf("remote %+v (pooler %+v, network %+v)", r, r.Pooler, r.Network)
	}
	if got, i := s.SUT.PlacementOf("remote"); got.Name != "remote" || i != 1 || s.SUT.PlacementPath(i) != "sut.placement[1]" {
		t.Errorf("PlacementOf(remote) = %+v, %d", got, i)
	}
	p, problems := Expand(s)
	if len(problems) > 0 {
		t.Fatal(joinProblems(problems))
	}
	var got []string
	for _, r := range p.Runs {
		got = append(got, strings.Join([]string{r.ID, strconv.Itoa(r.Clients), r.Placement}, "/"))
	}
	// Clients outside, placement inside: the dimensions' order.
	if want := "001/1/local 002/1/remote 003/2/local 004/2/remote"; strings.Join(got, " ") != want {
		t.Errorf("runs %v, want %s", got, want)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "placement") || !strings.Contains(table.String(), "remote") {
		t.Errorf("the table has no placement column:\n%s", table.String())
	}
	out := roundTrip(t, s)
	if strings.Contains(string(out), "transport: tcp\n  resources") {
		t.Errorf("the resolved spec writes sut.transport beside sut.placement:\n%s", out)
	}

	// Without sut.placement: one unnamed placement of the three keys,
	// written at "sut", and runs with no placement name.
	one := mustParse(t, "name: t\nsut: {transport: unix}\nworkload: {name: tpcb}\n")
	if ps := one.SUT.Placements(); len(ps) != 1 || ps[0].Name != "" || ps[0].Transport != "unix" || one.SUT.PlacementPath(0) != "sut" {
		t.Errorf("one placement: %+v", ps)
	}
	if p, _ := Expand(one); p.Runs[0].Placement != "" {
		t.Errorf("run placement %q without sut.placement", p.Runs[0].Placement)
	}
}

// TestPlacementProblems: each bad placement is named at its own path and
// line: a missing, malformed or repeated name, a transport that is not
// tcp or unix, a bad pooler or network value, an unknown key, an empty
// list, and sut.transport, sut.pooler or sut.network beside sut.placement.
func TestPlacementProblems(t *testing.T) {
	for src, want := range map[string]string{
		"sut:\n  placement:\n    - {transport: unix}\n":                            "sut.placement[0].name (line 4): required",
		"sut:\n  placement:\n    - {name: 'a b'}\n":                                "sut.placement[0].name (line 4): a b: must be letters",
		"sut:\n  placement:\n    - {name: a}\n    - {name: a}\n":                   "sut.placement[1].name (line 5): a: must be unique among sut.placement (sut.placement[0] has it)",
		"sut:\n  placement:\n    - {name: a, transport: udp}\n":                    "sut.placement[0].transport (line 4): udp: must be tcp or unix",
		"sut:\n  placement:\n    - {name: a, network: {delay: -1ms}}\n":            "sut.placement[0].network.delay (line 4)",
		"sut:\n  placement:\n    - {name: a, pooler: {pool_size: x}}\n":            "sut.placement[0].pooler.pool_size (line 4)",
		"sut:\n  placement:\n    - {name: a, netwrk: {}}\n":                        "sut.placement[0].netwrk (line 4): unknown key; did you mean network?",
		"sut:\n  placement: []\n":                                                  "sut.placement (line 3): must list at least one placement",
		"sut:\n  placement: local\n":                                               "sut.placement (line 3): local: must be a list of placements",
		"sut:\n  network: {}\n  placement:\n    - {name: a}\n":                     "sut.network (line 3): cannot be given with sut.placement",
		"sut:\n  pooler: {kind: pgbouncer}\n  placement:\n    - {name: a}\n":       "sut.pooler (line 3): cannot be given with sut.placement",
		"sut:\n  transport: unix\n  placement:\n    - {name: a, transport: tcp}\n": "sut.transport (line 3): cannot be given with sut.placement",
	} {
		_, problems := Parse([]byte("name: t\n" + src + "workload: {name: tpcb}\n"))
		if text := joinProblems(problems); !strings.Contains(text, want) {
			t.Errorf("%q: no %q in\n%s", src, want, text)
		}
	}
}
