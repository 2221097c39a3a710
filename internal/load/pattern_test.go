package load

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Zhang et al. 2025, section II-C: "given ... tau=110, we generate the basic
// patterns ...: pattern (a): (0, 110, 0); pattern (b): (11, 88, 11);
// pattern (c): (44, 22, 44); pattern (d): (55, 0, 55)". Exact, for every
// tenant, as clients and as rates.
func TestElasticityTau110(t *testing.T) {
	want := map[string][]float64{
		SinglePeak:   {0, 110, 0},
		LargeSpike:   {11, 88, 11},
		SingleValley: {44, 22, 44},
		ZeroValley:   {55, 0, 55},
	}
	for name, w := range want {
		for _, whole := range []bool{true, false} {
			got, err := Values(Pattern{Name: name, Tau: 110, Tenants: 2}, whole)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || !reflect.DeepEqual(got[0], w) || !reflect.DeepEqual(got[1], w) {
				t.Errorf("%s (whole %v) = %v, want %v for each tenant", name, whole, got, w)
			}
		}
	}
}

// Zhang et al. 2025 (section III-E) ran the multi-tenancy patterns for 3
// tenants: (a) {(264,264,264), (99,99,99), (33,33,33)} (tau 330), (b)
// {(40,40,40), (30,30,30), (10,10,10)} (tau 100), (c) {(363,0,0), (0,429,0),
// (0,0,396)} (tau 330), (d) {(10,0,0), (0,20,0), (0,0,30)} (tau 100), built
// as II-D describes. The construction gives the same numbers; the paper lists
// (a) and (b) from the largest tenant down and swaps two peaks in (c).
func TestMultiTenancyPaper(t *testing.T) {
	build := func(name string, tau float64) [][]float64 {
		t.Helper()
		v, err := Values(Pattern{Name: name, Tau: tau, Tenants: 3, Slots: DefaultSlots, Delta: DefaultDelta}, true)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := build(HighContention, 330); !reflect.DeepEqual(got, [][]float64{{33, 33, 33}, {99, 99, 99}, {264, 264, 264}}) {
		t.Errorf("high-contention = %v", got)
	}
	if got := build(LowContention, 100); !reflect.DeepEqual(got, [][]float64{{10, 10, 10}, {30, 30, 30}, {40, 40, 40}}) {
		t.Errorf("low-contention = %v", got)
	}
	if got := build(StaggeredHigh, 330); !reflect.DeepEqual(got, [][]float64{{363, 0, 0}, {0, 396, 0}, {0, 0, 429}}) {
		t.Errorf("staggered-high = %v (the paper lists 429 for tenant 2 and 396 for tenant 3)", got)
	}
	if got := build(StaggeredLow, 100); !reflect.DeepEqual(got, [][]float64{{10, 0, 0}, {0, 20, 0}, {0, 0, 30}}) {
		t.Errorf("staggered-low = %v", got)
	}
	// the totals above and below the threshold tau (II-D: "higher than the
	// workload threshold in pattern (a) and pattern (c), but ... lower ...
	// in pattern (b) and (d)")
	sum := func(v [][]float64, slot int) (s float64) {
		for _, row := range v {
			s += row[slot]
		}
		return s
	}
	if sum(build(HighContention, 330), 0) <= 330 || sum(build(LowContention, 100), 0) >= 100 {
		t.Error("contention totals not on the right side of tau")
	}
	for slot := range 3 {
		if sum(build(StaggeredHigh, 330), slot) <= 330 || sum(build(StaggeredLow, 100), slot) >= 100 {
			t.Error("staggered totals not on the right side of tau")
		}
	}
}

func TestDefaultShares(t *testing.T) {
	if got := DefaultShares(3); !slices.Equal(got, []float64{10, 30, 60}) {
		t.Errorf("3 tenants: %v, want the paper's 10, 30, 60", got)
	}
	for m := 1; m <= 12; m++ {
		sum := 0.0
		for _, v := range DefaultShares(m) {
			sum += v
		}
		if !near(sum, 100, 1e-9) {
			t.Errorf("%d tenants: shares sum to %v", m, sum)
		}
		// low-contention is possible up to 12 tenants with delta 20
		if _, err := Values(Pattern{Name: LowContention, Tau: 100, Tenants: m, Slots: 3, Delta: 20}, false); err != nil {
			t.Errorf("%d tenants: %v", m, err)
		}
	}
}

func TestPatternGeneralised(t *testing.T) {
	v, err := Values(Pattern{Name: HighContention, Tau: 100, Tenants: 4, Slots: 5, Delta: 20, Shares: []float64{25, 25, 40, 10}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 4 || len(v[0]) != 5 || v[2][0] != 60 || v[0][4] != 25 || v[3][1] != 10 {
		t.Errorf("high-contention with shares = %v", v)
	}
	v, _ = Values(Pattern{Name: StaggeredLow, Tau: 100, Tenants: 5}, false)
	if len(v) != 5 || len(v[4]) != 5 || v[4][4] != 50 || v[4][0] != 0 {
		t.Errorf("staggered-low for 5 = %v", v)
	}
	if SlotCount(Pattern{Name: StaggeredHigh, Tenants: 7}) != 7 || SlotCount(Pattern{Name: SinglePeak}) != 3 {
		t.Error("SlotCount")
	}
	v, _ = Values(Pattern{Name: CustomPattern, Tau: 50, Tenants: 3, PerTenant: [][]float64{{10, 20}, {100, 0}}}, true)
	if !reflect.DeepEqual(v, [][]float64{{5, 10}, {50, 0}, {0, 0}}) {
		t.Errorf("custom per tenant = %v (a tenant without a list gets no load)", v)
	}
}

// Bad input: each mistake names its field.
func TestPatternErrors(t *testing.T) {
	for _, c := range []struct {
		p           Pattern
		field, want string
	}{
		{Pattern{Name: SinglePeak, Tenants: 1}, "tau", "required"},
		{Pattern{Name: SinglePeak, Tau: -3, Tenants: 1}, "tau", "greater than 0"},
		{Pattern{Name: "nope", Tau: 1, Tenants: 1}, "name", "unknown pattern"},
		{Pattern{Name: StaggeredLow, Tau: 10, Tenants: 10}, "", "at most 9 tenants"},
		{Pattern{Name: LowContention, Tau: 10, Tenants: 14, Slots: 3, Delta: 20}, "delta", "must not exceed"},
		{Pattern{Name: HighContention, Tau: 10, Tenants: 2, Slots: 3, Delta: 20, Shares: []float64{50}}, "shares", "one per tenant"},
		{Pattern{Name: HighContention, Tau: 10, Tenants: 2, Slots: 3, Delta: 20, Shares: []float64{50, 40}}, "shares", "sum to 100"},
		{Pattern{Name: HighContention, Tau: 10, Tenants: 2, Slots: 0, Delta: 20}, "slots", "at least 1"},
		{Pattern{Name: HighContention, Tau: 10, Tenants: 2, Slots: 1, Delta: 120}, "delta", "0..100"},
		{Pattern{Name: CustomPattern, Tau: 10, Tenants: 2, Levels: []float64{10, -1}}, "levels[1]", "0 or more"},
		{Pattern{Name: CustomPattern, Tau: 10, Tenants: 2, PerTenant: [][]float64{{1}, {2}, {3}}}, "tenants", "at most one list per tenant"},
		{Pattern{Name: CustomPattern, Tau: 10, Tenants: 2, PerTenant: [][]float64{{1}, {2, 3}}}, "tenants[1]", "as long"},
		{Pattern{Name: CustomPattern, Tau: 10, Tenants: 2}, "levels", "needs levels"},
	} {
		_, err := Values(c.p, false)
		pe, ok := err.(*PatternError)
		if !ok || pe.Field != c.field || !strings.Contains(pe.Msg, c.want) {
			t.Errorf("%+v: got %v, want %s: ...%s...", c.p, err, c.field, c.want)
		}
	}
}
