package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Expand turns a spec into its plan: the cross product of
//
//	workload.cases x sut.engine x tenancy.model x tenancy.tenants x workload.scale
//	x workload.clients x workload.load.rate x workload.pattern.name
//	x sut.storage.kind x sut.storage.volume x sut.resources.cpu_policy
//	x sut.placement x sut.replicas (or the case's replicas)
//	x each list-valued sut.settings key of the run's engine (keys sorted, values as written)
//	x each list-valued interference param (events and params as written)
//	x repetition
//
// in that order, the first dimension outermost and repetitions innermost
// (blocked order); then the spec's order (RunOrder) arranges the runs in
// rounds and numbers them as they will run. The order depends on the spec
// alone, so the same spec always gives the same run IDs. The settings
// dimensions are each engine's own (engines.go): an engine's list
// multiplies its runs, not the other engines'. The engine comes right
// after the case so that, in interleaved order, one case's engines run
// next to each other in every round.
//
// Expand validates s first and returns Validate's problems instead of a
// plan when there are any (the max_connections check per run and the
// MaxRuns cap included); a spec returned by Load without problems always
// expands. It does not change s; the plan refers to it.
func Expand(s *Spec) (*Plan, []Problem) {
	if problems := Validate(s); len(problems) > 0 {
		return nil, problems
	}
	return ExpandValid(s), nil
}

// ExpandValid is Expand for a spec known to be valid: one that Load or
// Parse returned without problems. It does not validate again.
func ExpandValid(s *Spec) *Plan {
	p := &Plan{Spec: s}
	shownKeys := map[string]bool{}
	for _, e := range s.SUT.Engine {
		for _, k := range s.listKeys(e) {
			shownKeys[k] = true
		}
	}
	for _, k := range s.caseKeys() {
		shownKeys[k] = true
	}
	if len(shownKeys) > 0 {
		p.SettingKeys = sortedKeys(shownKeys)
	}
	dims := s.interferenceDims()
	for _, d := range dims {
		p.InterferenceKeys = append(p.InterferenceKeys, d.key)
	}
	type point struct {
		tenants, clients int
		rate             float64
		pattern, kase    string // kase: a case with a pattern of its own
	}
	conns := map[point]int{} // the same for every model, scale, setting, engine, repetition
	for _, c := range s.Workload.cases() {
		// A case with its own interference list has no dimension of the
		// spec's; one with its own replicas takes them for sut.replicas.
		cdims, replicas := dims, c.replicasOr(s.SUT.Replicas)
		if c.ownInterference() {
			cdims = nil
		}
		cw, kase := c.patterned(s.Workload), ""
		if c.Pattern != nil {
			kase = c.Name
		}
		for _, e := range s.SUT.Engine {
			for _, r := range s.expandEngine(e, &cw, cdims, replicas) {
				c.apply(&s.Workload, &r)
				// The asked provisioning; the plan settles what the model allows.
				r.Provision = s.Workload.Provision
				r.Round = r.Repetition
				r.Seed = RunSeed(s.Seed, &r)
				k := point{r.Tenants, r.Clients, r.Rate, r.Pattern, kase}
				if n, ok := conns[k]; ok {
					r.Clients = n
				} else {
					s.resolveLoad(&r)
					conns[k] = r.Clients
				}
				r.Index = len(p.Runs) + 1
				r.Point = (r.Index-1)/s.Repeat + 1
				p.Runs = append(p.Runs, r)
			}
		}
	}
	p.Runs = s.arrange(p.Runs) // numbers them too
	return p
}

// listKeys are engine's settings that are dimensions (a list), sorted.
func (s *Spec) listKeys(engine string) []string {
	var out []string
	set := s.SUT.SettingsOf(engine)
	for _, k := range sortedKeys(set) {
		if len(set[k]) > 1 {
			out = append(out, k)
		}
	}
	return out
}

// expandEngine is the runs of one case on engine before the case is
// applied: the cross product of the dimensions after the engine, in
// blocked order, an odometer over them (counts[i] is how many values
// dimension i has, at[i] which one the current run takes). w is the
// workload as the case sees it (its pattern).
func (s *Spec) expandEngine(engine string, w *Workload, dims []paramDim, replicas Ints) []Run {
	rates, patterns := w.rates(), w.patterns()
	st, policies, places := s.SUT.Storage, s.SUT.Resources.CPUPolicy, s.SUT.Placements()
	settings, listKeys := s.SUT.SettingsOf(engine), s.listKeys(engine)
	counts := []int{len(s.Tenancy.Model), len(s.Tenancy.Tenants), len(s.Workload.Scale), len(s.Workload.Clients),
		len(rates), len(patterns), len(st.Kind), len(st.Volume), len(policies), len(places), len(replicas)}
	settingsAt := len(counts) // index of the first settings dimension
	for _, k := range listKeys {
		counts = append(counts, len(settings[k]))
	}
	interfereAt := len(counts)
	for _, d := range dims {
		counts = append(counts, len(d.values))
	}
	counts = append(counts, s.Repeat)
	total := 1
	for _, c := range counts {
		total *= c // Validate capped the product at MaxRuns
	}
	out := make([]Run, 0, total)
	at := make([]int, len(counts))
	for range total {
		r := Run{
			Engine:     engine,
			Model:      s.Tenancy.Model[at[0]],
			Tenants:    s.Tenancy.Tenants[at[1]],
			Scale:      s.Workload.Scale[at[2]],
			Clients:    s.Workload.Clients[at[3]],
			Rate:       rates[at[4]],
			Pattern:    patterns[at[5]],
			Storage:    st.Kind[at[6]],
			Volume:     st.Volume[at[7]],
			CPUPolicy:  policies[at[8]],
			Placement:  places[at[9]].Name,
			Replicas:   replicas[at[10]],
			Repetition: at[len(at)-1] + 1,
			Settings:   make(map[string]string, len(settings)),
		}
		for k, v := range settings {
			r.Settings[k] = v[0]
		}
		for j, k := range listKeys {
			r.Settings[k] = settings[k][at[settingsAt+j]]
		}
		for j, d := range dims {
			if r.Interference == nil {
				r.Interference = map[string]string{}
			}
			r.Interference[d.key] = resolve(d.values[at[interfereAt+j]]).Value
		}
		out = append(out, r)
		for d := len(at) - 1; d >= 0; d-- {
			if at[d]++; at[d] < counts[d] {
				break
			}
			at[d] = 0
		}
	}
	return out
}

// RunSeed derives a run's seed from the spec's seed and the run's scale
// only. Runs that differ in model, tenants, clients, settings or
// repetition load the same data and their clients make the same choices
// (tenant i's client j draws the same stream in every run), so that a
// comparison across models or settings measures the system, not the
// generator. The scale changes the data, so it changes the seed.
//
// The seed is the first 8 bytes (big-endian) of SHA-256 over a versioned
// text of these values, with the sign bit cleared so that it prints the
// same everywhere. SHA-256 is used for its stability across Go versions
// and platforms, not for secrecy.
func RunSeed(seed int64, r *Run) int64 {
	text := fmt.Sprintf("tenantbench run seed v2\nseed=%d\nscale=%s\n", seed, strconv.FormatFloat(r.Scale, 'g', -1, 64))
	sum := sha256.Sum256([]byte(text))
	return int64(binary.BigEndian.Uint64(sum[:8]) & math.MaxInt64)
}
