package tpcc

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

func TestParseValid(t *testing.T) {
	all := DefaultOptions()
	all.Mix = [numTxns]int{NewOrder: 50, Payment: 50}
	all.AllWarehouses, all.Retries, all.Check, all.Isolation, all.Seed, all.LoadConnections, all.Freeze = true, 0, CheckFull, IsolationSerializable, -3, 8, false
	all.KeyingAndThinkTime, all.Interaction = true, InteractionProcedures
	for _, tc := range []struct {
		name, src string
		want      Options
	}{
		{"absent", "", DefaultOptions()},
		{"null", "~", DefaultOptions()},
		{"empty", "{}", DefaultOptions()},
		{"keys without values keep the defaults", "mix:\nretries: ~\ncheck:", DefaultOptions()},
		{"all keys", `mix: {new_order: 50, payment: 50}
all_warehouses: true
retries: 0
check: full
isolation: serializable
seed: -3
load_connections: 8
freeze: false
keying_and_think_time: true
interaction: procedures`, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := Parse(wltest.OptionsNode(t, tc.src))
			if problems != nil {
				t.Fatalf("problems: %v", problems)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if got, problems := Parse(nil); problems != nil || !reflect.DeepEqual(got, DefaultOptions()) {
		t.Fatalf("Parse(nil) = %+v, %v", got, problems)
	}
}

// TestParseProblems checks that every problem is reported at once, with
// its path below workload.options.
func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []spec.Problem // Allowed matched as a substring
	}{
		{"not a mapping", "[1]", []spec.Problem{{Path: "workload.options", Allowed: "must be a mapping with the keys mix, all_warehouses"}}},
		{"typo", "retires: 3", []spec.Problem{{Path: "workload.options.retires", Allowed: "did you mean retries?"}}},
		{"quoted number", "retries: '3'", []spec.Problem{{Path: "workload.options.retries", Value: "3", Allowed: "from 0 to 100, written without quotes"}}},
		{"unknown key", "warehouses: 3", []spec.Problem{{Path: "workload.options.warehouses", Allowed: "unknown key; allowed here: mix, all_warehouses"}}},
		{"mix sum", "mix: {new_order: 45, payment: 43, order_status: 4, delivery: 4}",
			[]spec.Problem{{Path: "workload.options.mix", Allowed: "sum to 96"}}},
		{"mix entries", "mix: {new_order: 101, payment: -1, neworder: 3, delivery: 1.5}", []spec.Problem{
			{Path: "workload.options.mix.new_order", Value: "101", Allowed: "percentage from 0 to 100"},
			{Path: "workload.options.mix.payment", Value: "-1", Allowed: "percentage from 0 to 100"},
			{Path: "workload.options.mix.neworder", Allowed: "did you mean new_order? allowed here: new_order, payment"},
			{Path: "workload.options.mix.delivery", Value: "1.5", Allowed: "percentage"},
		}},
		{"interaction typo", "interaction: statement", []spec.Problem{{Path: "workload.options.interaction", Value: "statement",
			Allowed: "must be one of batched, statements, procedures; did you mean statements?"}}},
		{"mix not a mapping", "mix: 45", []spec.Problem{{Path: "workload.options.mix", Value: "45", Allowed: "mapping with the keys new_order, payment"}}},
		{"everything wrong", `all_warehouses: yes please
retries: 101
check: some
isolation: snapshot
seed: 1.5
load_connections: 65
retries: 2`, []spec.Problem{
			{Path: "workload.options.all_warehouses", Value: "yes please", Allowed: "true or false"},
			{Path: "workload.options.retries", Value: "101", Allowed: "from 0 to 100"},
			{Path: "workload.options.check", Value: "some", Allowed: "basic"},
			{Path: "workload.options.isolation", Value: "snapshot", Allowed: "read_committed"},
			{Path: "workload.options.seed", Value: "1.5", Allowed: "whole number"},
			{Path: "workload.options.load_connections", Value: "65", Allowed: "to 64"},
			{Path: "workload.options.retries", Allowed: "written twice (first on line 2)"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := Parse(wltest.OptionsNode(t, tc.src))
			if got != nil {
				t.Errorf("options %+v returned with problems", got)
			}
			if len(problems) != len(tc.want) {
				t.Fatalf("problems %v, want %d", problems, len(tc.want))
			}
			for i, p := range problems {
				w := tc.want[i]
				if p.Path != w.Path || p.Value != w.Value || !strings.Contains(p.Allowed, w.Allowed) || p.Line == 0 {
					t.Errorf("problem %d: %+v, want %+v", i, p, w)
				}
			}
		})
	}
}

func TestNew(t *testing.T) {
	for _, scale := range []float64{0, -1, 1.5, 0.5} {
		if _, err := New(scale, nil); err == nil || !strings.Contains(err.Error(), "number of warehouses") {
			t.Errorf("New(%v) = %v, want an error about the number of warehouses", scale, err)
		}
	}
	bad := DefaultOptions()
	bad.Mix[NewOrder] = 46
	if _, err := New(1, bad); err == nil {
		t.Error("a mix of 101 accepted")
	}
	wl, err := New(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := wl.TxnNames(); !reflect.DeepEqual(names, []string{"new_order", "payment", "order_status", "delivery", "stock_level"}) {
		t.Errorf("TxnNames = %v", names)
	}
	if _, ok := wl.(workload.Checker); !ok {
		t.Error("tpcc is not a workload.Checker")
	}
	if w, ok := wl.(*Workload); !ok || w.Warehouses() != 2 {
		t.Error("New(2) does not make 2 warehouses")
	}
	r := workload.Registry{}
	r.Add(Factory())
	if _, err := r.Build(&spec.Workload{Name: "tpcc"}, 1); err != nil {
		t.Errorf("Registry.Build: %v", err)
	}
}

func TestAudit(t *testing.T) {
	o := DefaultOptions()
	c := Counts{
		Txns:      [numTxns]int64{45000, 43000, 4000, 4000, 4000},
		Rollbacks: 450, OrderLines: 450000, RemoteLines: 4500,
		RemotePayments: 6450, PaymentsByName: 25800, OrderStatusByName: 2400,
		DeliveredOrders: 40000,
	}
	rates := AuditCounts(c, 10, o)
	if len(rates) != 12 {
		t.Fatalf("%d rates, want 12: %v", len(rates), rates)
	}
	if off := failed(rates); len(off) != 0 {
		t.Fatalf("a faithful run audited: %v", off)
	}
	// Deliberately wrong counts: 10 % remote payments instead of 15 %,
	// 2 % rollbacks, a mix short of Payments, and skipping Deliveries.
	bad := c
	bad.RemotePayments = 4300
	bad.Rollbacks = 900
	bad.Txns[Payment], bad.Txns[NewOrder] = 40000, 48000
	bad.PaymentsByName, bad.OrderLines, bad.RemoteLines = 24000, 480000, 4800
	bad.SkippedDistricts, bad.SkippingDeliveries = 1000, 1000
	off := failed(AuditCounts(bad, 10, o))
	want := []string{"mix new_order", "mix payment", "new_order rollbacks", "remote payments", "deliveries skipping a district"}
	if len(off) != len(want) {
		t.Fatalf("out of bounds: %v, want %v", off, want)
	}
	for i, r := range off {
		if r.Name != want[i] || !strings.Contains(r.String(), "observed") {
			t.Errorf("out of bounds %d: %v, want %s", i, r, want[i])
		}
	}
	// One warehouse: nothing remote is expected, and any is reported.
	c.RemotePayments, c.RemoteLines = 0, 0
	if off := failed(AuditCounts(c, 1, o)); len(off) != 0 {
		t.Fatalf("one warehouse audited: %v", off)
	}
	c.RemoteLines = 1
	if off := failed(AuditCounts(c, 1, o)); len(off) != 1 || off[0].Name != "remote order lines" {
		t.Fatalf("a remote line with one warehouse: %v", off)
	}
	// A configured mix is audited as configured.
	o.Mix = [numTxns]int{100, 0, 0, 0, 0}
	if off := failed(AuditCounts(Counts{Txns: [numTxns]int64{100}, OrderLines: 1000, Rollbacks: 1}, 1, o)); len(off) != 0 {
		t.Fatalf("a New-Order-only mix: %v", off)
	}
	// A short run is judged by the exact binomial interval: 3
	// rollbacks in 50 New-Orders happen (P = 1.4 %), 10 do not.
	short := Counts{Txns: [numTxns]int64{NewOrder: 50}, Rollbacks: 3, OrderLines: 500}
	if off := failed(AuditCounts(short, 1, o)); len(off) != 0 {
		t.Fatalf("a short run audited: %v", off)
	}
	short.Rollbacks = 10
	if off := failed(AuditCounts(short, 1, o)); len(off) != 1 || off[0].Name != "new_order rollbacks" {
		t.Fatalf("10 rollbacks in 50: %v", off)
	}
}

func failed(rates []workload.Rate) []workload.Rate {
	var out []workload.Rate
	for _, r := range rates {
		if !r.OK {
			out = append(out, r)
		}
	}
	return out
}

// TestBinomialBounds compares the acceptance interval with the tails
// summed term by term from k = 0 and k = n.
func TestBinomialBounds(t *testing.T) {
	for _, c := range []struct {
		n int64
		p float64
	}{{1, 0.45}, {10, 0.01}, {50, 0.01}, {200, 0.6}, {1000, 0.15}, {3000, 0.01}, {5000, 0.43}} {
		lo, hi := binomialBounds(c.n, c.p, auditAlpha)
		// The terms by the recurrence P(k+1) = P(k) (n-k)/(k+1) p/(1-p), in
		// logarithms from P(0) = (1-p)^n.
		pmf := make([]float64, c.n+1)
		l := float64(c.n) * math.Log1p(-c.p)
		for k := range pmf {
			pmf[k] = math.Exp(l)
			l += math.Log(float64(c.n-int64(k))/float64(k+1)) + math.Log(c.p/(1-c.p))
		}
		wantLo, sum := int64(0), 0.0
		for k := int64(0); k <= c.n; k++ {
			if sum += pmf[k]; sum >= auditAlpha/2 {
				wantLo = k
				break
			}
		}
		wantHi, sum := c.n, 0.0
		for k := c.n; k >= 0; k-- {
			if sum += pmf[k]; sum >= auditAlpha/2 {
				wantHi = k
				break
			}
		}
		if lo != wantLo || hi != wantHi {
			t.Errorf("n %d p %v: [%d, %d], want [%d, %d]", c.n, c.p, lo, hi, wantLo, wantHi)
		}
		if mean := float64(c.n) * c.p; float64(lo) > mean || float64(hi) < mean {
			t.Errorf("n %d p %v: [%d, %d] leaves out the mean", c.n, c.p, lo, hi)
		}
	}
	if lo, hi := binomialBounds(100, 0, auditAlpha); lo != 0 || hi != 0 {
		t.Errorf("p 0: [%d, %d]", lo, hi)
	}
}

// TestCaseOptions: the options of workload.cases are checked by the
// workload too, each problem named by its path below the case.
func TestCaseOptions(t *testing.T) {
	s, problems := spec.Parse([]byte(`name: t
workload:
  name: tpcc
  options: {retries: 5}
  cases:
    - {name: a, options: {all_warehouses: true}}
    - {name: b, options: {mix: {new_order: 50}}}
`))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	r := workload.Registry{}
	r.Add(Factory())
	problems = r.Check(&s.Workload)
	if len(problems) != 1 || problems[0].Path != "workload.cases[1].options.mix" || !strings.Contains(problems[0].Allowed, "sum to 50") {
		t.Errorf("problems: %v", problems)
	}
}
