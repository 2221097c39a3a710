package tpcb

import (
	"math"
	"testing"
)

func mustNew(t testing.TB, scale float64, scripts map[string]int) *Workload {
	t.Helper()
	o := DefaultOptions()
	if scripts != nil {
		o.Scripts = scripts
	}
	w, err := New(scale, o)
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// TestPickProportions checks that scripts are picked in proportion to their
// weights (chi-square, fixed seed, so the outcome is the same every run).
func TestPickProportions(t *testing.T) {
	w := mustNew(t, 1, map[string]int{TPCBLike: 1, SimpleUpdate: 2, SelectOnly: 7})
	c := w.newClient(42)
	const n = 100000
	counts := make([]int, 3)
	for range n {
		counts[c.Pick()]++
	}
	chi2 := 0.0
	for i, wt := range []float64{1, 2, 7} {
		exp := n * wt / 10
		d := float64(counts[i]) - exp
		chi2 += d * d / exp
	}
	// 13.82 is the 0.999 quantile of chi-square with 2 degrees of freedom.
	if chi2 > 13.82 {
		t.Fatalf("counts %v for weights 1:2:7, chi-square %.2f", counts, chi2)
	}
}

func TestPickZeroWeightNeverPicked(t *testing.T) {
	w := mustNew(t, 1, map[string]int{TPCBLike: 0, SimpleUpdate: 1, SelectOnly: 1})
	if names := w.TxnNames(); len(names) != 2 || names[0] != SimpleUpdate || names[1] != SelectOnly {
		t.Fatalf("TxnNames = %v", names)
	}
	c := w.newClient(1)
	seen := map[int]int{}
	for range 1000 {
		seen[c.Pick()]++
	}
	if len(seen) != 2 || seen[0] == 0 || seen[1] == 0 {
		t.Fatalf("picks %v", seen)
	}
}

// TestDeterministic checks that one seed gives one sequence of scripts and
// values, and another seed another.
func TestDeterministic(t *testing.T) {
	w := mustNew(t, 5, map[string]int{TPCBLike: 1, SelectOnly: 1})
	seq := func(seed uint64) []int64 {
		c := w.newClient(seed)
		var out []int64
		for range 1000 {
			out = append(out, int64(c.Pick()), c.random(1, c.accounts), c.random(-5000, 5000))
		}
		return out
	}
	a, b, other := seq(7), seq(7), seq(8)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 7 differs at %d: %d vs %d", i, a[i], b[i])
		}
		same = same && a[i] == other[i]
	}
	if same {
		t.Fatal("seeds 7 and 8 give the same sequence")
	}
}

// TestRandomRanges checks pgbench's ranges: random(min, max) includes both
// ends.
func TestRandomRanges(t *testing.T) {
	w := mustNew(t, 2, nil)
	c := w.newClient(3)
	for _, r := range []struct{ min, max int64 }{{1, c.accounts}, {1, c.branches}, {1, c.tellers}, {-5000, 5000}} {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for range 200000 {
			v := c.random(r.min, r.max)
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo < r.min || hi > r.max {
			t.Errorf("random(%d, %d) drew outside: [%d, %d]", r.min, r.max, lo, hi)
		}
		if r.max-r.min <= 10000 && (lo != r.min || hi != r.max) {
			t.Errorf("random(%d, %d) never reached an end: [%d, %d]", r.min, r.max, lo, hi)
		}
	}
	if c.accounts != 200000 || c.branches != 2 || c.tellers != 20 {
		t.Errorf("ranges at scale 2: accounts %d branches %d tellers %d", c.accounts, c.branches, c.tellers)
	}
}

func TestCreateStatements(t *testing.T) {
	w := mustNew(t, 1, nil)
	w.opts.Fillfactor = 90
	want := []string{
		"create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))",
		"create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=90)",
		"create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=90)",
		"create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=90)",
	}
	got := w.createStatements()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("statement %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	big := &Workload{scale: scale32BitThreshold, opts: DefaultOptions()}
	if s := big.createStatements(); s[0] != "create table pgbench_history(tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22))" ||
		s[2] != "create table pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84)) with (fillfactor=100)" {
		t.Errorf("scale 20000 statements: %q", s)
	}
}
