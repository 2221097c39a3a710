package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Expand turns a spec into its plan: the cross product of
//
//	workload.cases x tenancy.model x tenancy.tenants x workload.scale x workload.clients
//	x workload.load.rate x workload.pattern.name
//	x sut.storage.kind x sut.storage.volume x sut.resources.cpu_policy x sut.placement
//	x each list-valued sut.settings key (keys sorted, values as written)
//	x each list-valued interference param (events and params as written)
//	x repetition
//
// in that order, the first dimension outermost and repetitions innermost
// (blocked order); then the spec's order (RunOrder) arranges the runs in
// rounds and numbers them as they will run. The order depends on the spec
// alone, so the same spec always gives the same run IDs.
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
	var listKeys []string // the settings that are dimensions
	for _, k := range sortedKeys(s.SUT.Settings) {
		if len(s.SUT.Settings[k]) > 1 {
			listKeys = append(listKeys, k)
		}
	}
	shownKeys := map[string]bool{}
	for _, k := range append(append([]string(nil), listKeys...), s.caseKeys()...) {
		if !shownKeys[k] {
			shownKeys[k] = true
			p.SettingKeys = append(p.SettingKeys, k)
		}
	}
	sort.Strings(p.SettingKeys)
	// An odometer over the dimensions: counts[i] is how many values
	// dimension i has, at[i] which one the current run takes.
	cases, rates, patterns := s.Workload.cases(), s.Workload.rates(), s.Workload.patterns()
	st, policies, places := s.SUT.Storage, s.SUT.Resources.CPUPolicy, s.SUT.Placements()
	counts := []int{len(cases), len(s.Tenancy.Model), len(s.Tenancy.Tenants), len(s.Workload.Scale), len(s.Workload.Clients),
		len(rates), len(patterns), len(st.Kind), len(st.Volume), len(policies), len(places), len(s.SUT.Replicas)}
	settingsAt := len(counts) // index of the first settings dimension
	for _, k := range listKeys {
		counts = append(counts, len(s.SUT.Settings[k]))
	}
	dims := s.interferenceDims()
	interfereAt := len(counts)
	for _, d := range dims {
		counts = append(counts, len(d.values))
		p.InterferenceKeys = append(p.InterferenceKeys, d.key)
	}
	counts = append(counts, s.Repeat)
	total := 1
	for _, c := range counts {
		total *= c // Validate capped the product at MaxRuns
	}
	width := max(3, len(strconv.Itoa(total)))
	p.Runs = make([]Run, 0, total)
	at := make([]int, len(counts))
	type point struct {
		tenants, clients int
		rate             float64
		pattern          string
	}
	conns := map[point]int{} // the same for every model, scale, setting, repetition
	for i := 1; i <= total; i++ {
		r := Run{
			Index:      i,
			ID:         fmt.Sprintf("%0*d", width, i),
			Model:      s.Tenancy.Model[at[1]],
			Tenants:    s.Tenancy.Tenants[at[2]],
			Scale:      s.Workload.Scale[at[3]],
			Clients:    s.Workload.Clients[at[4]],
			Rate:       rates[at[5]],
			Pattern:    patterns[at[6]],
			Storage:    st.Kind[at[7]],
			Volume:     st.Volume[at[8]],
			CPUPolicy:  policies[at[9]],
			Placement:  places[at[10]].Name,
			Replicas:   s.SUT.Replicas[at[11]],
			Repetition: at[len(at)-1] + 1,
			Point:      (i-1)/s.Repeat + 1,
			Settings:   make(map[string]string, len(s.SUT.Settings)),
		}
		for k, v := range s.SUT.Settings {
			r.Settings[k] = v[0]
		}
		for j, k := range listKeys {
			r.Settings[k] = s.SUT.Settings[k][at[settingsAt+j]]
		}
		for j, d := range dims {
			if r.Interference == nil {
				r.Interference = map[string]string{}
			}
			r.Interference[d.key] = resolve(d.values[at[interfereAt+j]]).Value
		}
		cases[at[0]].apply(&s.Workload, &r)
		// The asked provisioning; the plan settles what the model allows.
		r.Provision = s.Workload.Provision
		r.Round = r.Repetition
		r.Seed = RunSeed(s.Seed, &r)
		k := point{r.Tenants, r.Clients, r.Rate, r.Pattern}
		if c, ok := conns[k]; ok {
			r.Clients = c
		} else {
			s.resolveLoad(&r)
			conns[k] = r.Clients
		}
		p.Runs = append(p.Runs, r)
		for d := len(at) - 1; d >= 0; d-- {
			if at[d]++; at[d] < counts[d] {
				break
			}
			at[d] = 0
		}
	}
	p.Runs = s.arrange(p.Runs)
	return p
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
