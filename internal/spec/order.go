package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// The values of order: how the runs of a plan follow one another in time.
// A machine's speed drifts (a cloud VM's by tens of percent over minutes),
// and in blocked order that drift lands on whichever dimension is
// outermost; interleaved and shuffled orders spread it over every point
// of a round, so that points can be compared within a round.
const (
	// OrderBlocked runs a point's repetitions back to back.
	OrderBlocked = "blocked"
	// OrderInterleaved runs round 1 (the first repetition of every point
	// in matrix order), then round 2 in the reverse order, and so on,
	// alternating: a steady drift within a round favours the later points
	// of a forward round and the earlier points of a reversed one, so
	// over a pair of rounds it cancels (a counterbalanced, ABBA design).
	OrderInterleaved = "interleaved"
	// OrderShuffled is interleaved with the points of each round in an
	// order drawn from the spec's seed.
	OrderShuffled = "shuffled"
)

func orders() choice {
	return choice{[]string{OrderBlocked, OrderInterleaved, OrderShuffled}, nil}
}

// RunOrder is the spec's order, resolved: as written, or by default
// interleaved when points repeat and blocked when they do not (a round of
// one run each is the same either way).
func (s *Spec) RunOrder() string {
	switch {
	case s.Order != "":
		return s.Order
	case s.Repeat > 1:
		return OrderInterleaved
	}
	return OrderBlocked
}

// OrderDefaulted says the order was not written and RunOrder chose it.
func (s *Spec) OrderDefaulted() bool { return s.Order == "" }

// Probe is the speed probe: a short fixed measurement of the machine,
// before each run or each round, so that drift is seen apart from the
// experiment's effects.
type Probe struct {
	// Every is ProbeEveryRun or ProbeEveryRound.
	Every string `yaml:"every"`
	// What is ProbeCPU or ProbeTPCB.
	What string `yaml:"what"`
}

// The values of probe.every and probe.what.
const (
	ProbeEveryRun   = "run"
	ProbeEveryRound = "round"
	// ProbeCPU is a fixed CPU loop in tenantbench's own process.
	ProbeCPU = "cpu"
	// ProbeTPCB is 5 s of tpcb select-only on a probe server of its own.
	ProbeTPCB = "tpcb"
	// ProbeWorkload is the workload the tpcb probe runs.
	ProbeWorkload = "tpcb"
)

func probeEvery() choice { return choice{[]string{ProbeEveryRun, ProbeEveryRound}, nil} }
func probeWhat() choice  { return choice{[]string{ProbeCPU, ProbeTPCB}, nil} }

func (d *Decoder) probe(n *yaml.Node, path string, dst **Probe) {
	if IsNull(resolve(n)) {
		return
	}
	p := &Probe{Every: ProbeEveryRun, What: ProbeCPU}
	d.Mapping(n, path, []Field{
		{"every", func(n *yaml.Node, p2 string) { Scalar(d, n, p2, ReadText, &p.Every) }},
		{"what", func(n *yaml.Node, p2 string) { Scalar(d, n, p2, ReadText, &p.What) }},
	})
	*dst = p
}

func (v *validator) order(s *Spec) {
	if s.Order != "" && !orders().has(s.Order) {
		v.add("order", shown(s.Order), orders().allowed(s.Order)+
			" (blocked: a point's repetitions back to back; interleaved: one repetition of every point per round, every second round reversed; "+
			"shuffled: rounds in an order drawn from seed)")
	}
	if p := s.Probe; p != nil {
		if !probeEvery().has(p.Every) {
			v.add("probe.every", shown(p.Every), probeEvery().allowed(p.Every)+" (before each run, or before each round)")
		}
		if !probeWhat().has(p.What) {
			v.add("probe.what", shown(p.What), probeWhat().allowed(p.What)+
				" (cpu: a fixed CPU loop in tenantbench; tpcb: 5 s of tpcb select-only on a probe server)")
		}
	}
}

// arrange puts runs, made in blocked order (a point's repetitions
// adjacent), into the spec's order, and numbers them in it: run 001 is
// the first to run. Point and Round are kept from the blocked order.
func (s *Spec) arrange(runs []Run) []Run {
	out := runs
	switch s.RunOrder() {
	case OrderInterleaved, OrderShuffled:
		out = make([]Run, 0, len(runs))
		rounds := make([][]Run, s.Repeat)
		for _, r := range runs {
			rounds[r.Round-1] = append(rounds[r.Round-1], r)
		}
		for i, round := range rounds {
			switch {
			case s.RunOrder() == OrderShuffled:
				shuffle(s.Seed, i+1, round)
			case i%2 == 1:
				slices.Reverse(round)
			}
			out = append(out, round...)
		}
	}
	width := max(3, len(strconv.Itoa(len(out))))
	for i := range out {
		out[i].Index = i + 1
		out[i].ID = fmt.Sprintf("%0*d", width, i+1)
	}
	return out
}

// shuffle orders a round's runs by a key drawn from the seed, the round
// and the run's point: SHA-256 of a versioned text, so that the order
// depends on neither the Go version (math/rand's shuffle may change) nor
// the platform. A round's order is independent of the other rounds'.
func shuffle(seed int64, round int, runs []Run) {
	key := func(r *Run) uint64 {
		text := fmt.Sprintf("tenantbench shuffle v1\nseed=%d\nround=%d\npoint=%d\n", seed, round, r.Point)
		sum := sha256.Sum256([]byte(text))
		return binary.BigEndian.Uint64(sum[:8])
	}
	keys := make(map[int]uint64, len(runs))
	for i := range runs {
		keys[runs[i].Point] = key(&runs[i])
	}
	sort.SliceStable(runs, func(i, j int) bool { return keys[runs[i].Point] < keys[runs[j].Point] })
}
