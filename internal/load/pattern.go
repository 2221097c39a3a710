package load

import (
	"fmt"
	"math"
	"slices"
)

// The pattern library of CloudyBench (Zhang et al. 2025): elasticity patterns
// of section II-C and multi-tenancy patterns of section II-D, each a value
// per time slot (a minute in the paper) for every tenant, proportional to
// tau, "the concurrency number where a tested database reaches the resource
// limit". For a closed load the values are clients, rounded to whole numbers;
// for an open load they are arrival rates and tau is a rate.
const (
	SinglePeak     = "single-peak"     // II-C (a)
	LargeSpike     = "large-spike"     // II-C (b)
	SingleValley   = "single-valley"   // II-C (c)
	ZeroValley     = "zero-valley"     // II-C (d)
	HighContention = "high-contention" // II-D (a)
	LowContention  = "low-contention"  // II-D (b)
	StaggeredHigh  = "staggered-high"  // II-D (c)
	StaggeredLow   = "staggered-low"   // II-D (d)
	CustomPattern  = "custom"          // levels given in the spec, in % of tau
)

// PatternNames lists the patterns in the order of the paper, custom last.
func PatternNames() []string {
	return []string{SinglePeak, LargeSpike, SingleValley, ZeroValley,
		HighContention, LowContention, StaggeredHigh, StaggeredLow, CustomPattern}
}

// elasticity are the slots of II-C in % of tau: "pattern (a): (0%,
// 100%tau, 0%) ... (b): (10%tau, 80%tau, 10%tau) ... (c): (40%tau, 20%tau,
// 40%tau) ... (d): (50%tau, 0%, 50%tau)". Every tenant runs the same.
var elasticity = map[string][]float64{
	SinglePeak:   {0, 100, 0},
	LargeSpike:   {10, 80, 10},
	SingleValley: {40, 20, 40},
	ZeroValley:   {50, 0, 50},
}

// Pattern parameters. Tau is required; the others have defaults.
type Pattern struct {
	Name    string
	Tau     float64
	Tenants int // M, the run's tenants
	// Slots is the number of slots of the contention patterns (the paper's
	// example has DefaultSlots; the staggered patterns have one per tenant).
	Slots int
	// Delta is the share, in % of tau, added to (high-contention) or taken
	// from (low-contention) the tenant with the largest share
	// (DefaultDelta in the paper's example).
	Delta float64
	// Shares are the tenants' shares of tau in %, summing to 100 (the
	// contention patterns); nil = DefaultShares(M).
	Shares []float64
	// Levels (custom): % of tau per slot, for every tenant; or PerTenant:
	// a list per tenant (tenants without one get no load).
	Levels    []float64
	PerTenant [][]float64
}

// Defaults of the contention patterns: with them the paper's 3-tenant
// example of II-D comes out as its section III-E numbers (see Values).
const (
	DefaultDelta = 20
	DefaultSlots = 3
)

// PatternError is a pattern that cannot be built; Field names the spec key
// below workload.pattern that is at fault ("" for the pattern as a whole).
type PatternError struct {
	Field, Msg string
	Value      string // the offending value, "" when none
}

func (e *PatternError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// DefaultShares are the shares of M tenants in % of tau, proportional to
// the triangular numbers 1, 3, 6, 10, ... For M = 3 that is
// Zhang et al.'s (2025) "tenant 1: (10%tau ...), tenant 2: (30%tau ...),
// tenant 3: (60%tau ...)" exactly; the paper gives no rule for other M (its
// ratio is configurable), so this is tenantbench's generalisation: unequal
// demands, the largest tenant taking 3/(M+2) of tau.
func DefaultShares(m int) []float64 {
	w := make([]float64, m)
	sum := 0.0
	for i := range w {
		w[i] = float64((i + 1) * (i + 2) / 2)
		sum += w[i]
	}
	for i := range w {
		w[i] = w[i] * 100 / sum
	}
	return w
}

// Values builds the pattern: per tenant (M lists), a value per slot, all
// lists as long. whole rounds the values to whole numbers (clients).
//
// Elasticity (II-C): the slots above, times tau, for every tenant.
//
// Multi-tenancy (II-D), from the paper's construction for 3 tenants and
// 3 slots, generalised to M tenants:
//
//   - high-contention (a): every tenant runs its share of tau in every
//     slot, the tenant with the largest share delta more: the total is
//     (100 + delta) % of tau, above the threshold tau.
//   - low-contention (b): the same with delta less: below tau.
//   - staggered-low (d): "tenant 1: (10%tau, 0, 0), tenant 2: (0, 20%tau,
//     0), tenant 3: (0, 0, 30%tau) ... run in sequence": tenant i (from 1)
//     runs 10 i % of tau in slot i only; M slots.
//   - staggered-high (c): "by adding 100%tau to the tenants": (100 + 10 i)
//     % of tau in slot i.
//
// Section III-E lists the numbers it ran for 3 tenants: (a) {(264 x3),
// (99 x3), (33 x3)} with tau = 330; (b) {(40 x3), (30 x3), (10 x3)} with
// tau = 100; (c) {(363,0,0), (0,429,0), (0,0,396)} with tau = 330; (d)
// {(10,0,0), (0,20,0), (0,0,30)} with tau = 100. This construction gives
// the same sets of numbers; the paper lists (a) and (b) from the largest
// tenant down, and its (c) swaps the peaks of tenants 2 and 3 against its
// own rule (II-D gives tenant 2 120 % and tenant 3 130 %); tenantbench
// follows the rule.
func Values(p Pattern, whole bool) ([][]float64, error) {
	if !(p.Tau > 0) || math.IsInf(p.Tau, 0) {
		return nil, &PatternError{Field: "tau", Msg: "required: a number greater than 0 (the concurrency, or rate, at which the system reaches its resource limit)"}
	}
	m := p.Tenants
	if m < 1 {
		return nil, &PatternError{Field: "", Msg: "needs at least one tenant"}
	}
	of := func(pct float64) float64 { return p.Tau * pct / 100 } // multiply first: 110 x 10 / 100 is exactly 11
	var out [][]float64
	switch p.Name {
	case SinglePeak, LargeSpike, SingleValley, ZeroValley:
		for range m {
			row := make([]float64, 0, 3)
			for _, v := range elasticity[p.Name] {
				row = append(row, of(v))
			}
			out = append(out, row)
		}
	case HighContention, LowContention:
		var err error
		if out, err = contention(p); err != nil {
			return nil, err
		}
	case StaggeredHigh, StaggeredLow:
		base := 0.0
		if p.Name == StaggeredHigh {
			base = 100
		} else if m > 9 {
			return nil, &PatternError{Field: "", Msg: fmt.Sprintf("staggered-low gives tenant i 10 x i %% of tau, which must stay below tau: "+
				"at most 9 tenants, not %d (use staggered-high or custom)", m)}
		}
		for i := range m {
			row := make([]float64, m)
			row[i] = of(base + 10*float64(i+1))
			out = append(out, row)
		}
	case CustomPattern:
		var err error
		if out, err = custom(p, of); err != nil {
			return nil, err
		}
	default:
		return nil, &PatternError{Field: "name", Msg: "unknown pattern; must be one of " + fmt.Sprint(PatternNames())}
	}
	if whole {
		for _, row := range out {
			for j, v := range row {
				row[j] = math.Round(v)
			}
		}
	}
	return out, nil
}

// contention builds high- and low-contention: every tenant its share of
// tau in each slot, the largest share plus or minus delta.
func contention(p Pattern) ([][]float64, error) {
	m := p.Tenants
	slots := p.Slots
	if slots < 1 {
		return nil, &PatternError{Field: "slots", Msg: "must be at least 1"}
	}
	delta := p.Delta
	if !(delta >= 0 && delta <= 100) {
		return nil, &PatternError{Field: "delta", Msg: "must be 0..100 (% of tau)", Value: fmt.Sprint(delta)}
	}
	// shares[i] of tau, as a fraction num[i]/den so that the default
	// shares of 3 tenants give 99 of 330, not 99.00000000000001.
	num := make([]float64, m)
	den := 100.0
	if p.Shares == nil {
		den = 0
		for i := range num {
			num[i] = float64((i + 1) * (i + 2) / 2)
			den += num[i]
		}
	} else {
		if len(p.Shares) != m {
			return nil, &PatternError{Field: "shares", Msg: fmt.Sprintf("gives %d shares for %d tenants: give one per tenant", len(p.Shares), m)}
		}
		sum := 0.0
		for i, s := range p.Shares {
			if !(s >= 0) || math.IsInf(s, 0) {
				return nil, &PatternError{Field: fmt.Sprintf("shares[%d]", i), Msg: "must be a number, 0 or more (% of tau)", Value: fmt.Sprint(s)}
			}
			sum += s
		}
		if math.Abs(sum-100) > 1e-6 {
			return nil, &PatternError{Field: "shares", Msg: fmt.Sprintf("sum to %g; they must sum to 100 (%% of tau: the threshold the pattern goes above or below)", sum)}
		}
		copy(num, p.Shares)
	}
	big := 0
	for i := range num {
		if num[i] > num[big] {
			big = i
		}
	}
	d := p.Tau * delta / 100
	if p.Name == LowContention {
		d = -d
	}
	out := make([][]float64, m)
	for i := range out {
		v := p.Tau * num[i] / den
		if i == big {
			v += d
		}
		if v < 0 {
			return nil, &PatternError{Field: "delta", Msg: fmt.Sprintf("low-contention takes delta (%g %% of tau) from the largest share, "+
				"%.4g %% of tau for %d tenants: delta must not exceed it", delta, num[big]*100/den, m)}
		}
		out[i] = make([]float64, slots)
		for j := range out[i] {
			out[i][j] = v
		}
	}
	return out, nil
}

// custom builds a pattern of levels given in % of tau.
func custom(p Pattern, of func(float64) float64) ([][]float64, error) {
	if (p.Levels == nil) == (p.PerTenant == nil) {
		return nil, &PatternError{Field: "levels", Msg: "a custom pattern needs levels (one list for every tenant) or tenants (a list per tenant), not both"}
	}
	check := func(field string, row []float64) error {
		if len(row) == 0 {
			return &PatternError{Field: field, Msg: "must have at least one slot"}
		}
		for j, v := range row {
			if !(v >= 0) || math.IsInf(v, 0) {
				return &PatternError{Field: fmt.Sprintf("%s[%d]", field, j), Msg: "must be a number, 0 or more (% of tau)", Value: fmt.Sprint(v)}
			}
		}
		return nil
	}
	scaled := func(row []float64) []float64 {
		out := make([]float64, len(row))
		for j, v := range row {
			out[j] = of(v)
		}
		return out
	}
	var out [][]float64
	if p.Levels != nil {
		if err := check("levels", p.Levels); err != nil {
			return nil, err
		}
		for range p.Tenants {
			out = append(out, scaled(p.Levels))
		}
		return out, nil
	}
	if len(p.PerTenant) > p.Tenants {
		return nil, &PatternError{Field: "tenants", Msg: fmt.Sprintf("gives %d lists but the run has %d tenants: at most one list per tenant", len(p.PerTenant), p.Tenants)}
	}
	n := len(p.PerTenant[0])
	for i, row := range p.PerTenant {
		field := fmt.Sprintf("tenants[%d]", i)
		if err := check(field, row); err != nil {
			return nil, err
		}
		if len(row) != n {
			return nil, &PatternError{Field: field, Msg: fmt.Sprintf("has %d slots, tenants[0] has %d: every tenant's list must be as long", len(row), n)}
		}
		out = append(out, scaled(row))
	}
	for len(out) < p.Tenants {
		out = append(out, make([]float64, n)) // no list: no load
	}
	return out, nil
}

// SlotCount is how many slots pattern p has for its tenants, without
// building it (0 when it cannot be built).
func SlotCount(p Pattern) int {
	switch p.Name {
	case SinglePeak, LargeSpike, SingleValley, ZeroValley:
		return 3
	case HighContention, LowContention:
		return p.Slots
	case StaggeredHigh, StaggeredLow:
		return p.Tenants
	case CustomPattern:
		if p.Levels != nil {
			return len(p.Levels)
		}
		if len(p.PerTenant) > 0 {
			return len(p.PerTenant[0])
		}
	}
	return 0
}

// IsPattern reports whether name is in the library.
func IsPattern(name string) bool { return slices.Contains(PatternNames(), name) }
