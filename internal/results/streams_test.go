package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// stream makes a stream whose queries run back to back from at, taking
// the given seconds each; a negative time is a failed execution.
func stream(n int, planned int, at time.Time, names []string, secs []float64) workload.Stream {
	s := workload.Stream{Number: n, Queries: planned}
	for i, d := range secs {
		end := at.Add(time.Duration(math.Abs(d) * float64(time.Second)))
		e := workload.Exec{Query: names[i], Start: at, End: end}
		if d < 0 {
			e.Err = "server closed the connection"
		}
		s.Execs = append(s.Execs, e)
		at = end
	}
	return s
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestAnalyticalOf works Erdelt and Rabl's (2026) eq. 3-4 by hand for two
// tenants, each a stream of two queries run twice (n = 2).
func TestAnalyticalOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	names := []string{"q01", "q01", "q06", "q06"}
	ts := []TenantStreams{
		{Tenant: "t01", Streams: []workload.Stream{stream(1, 4, t0, names, []float64{1, 4, 2, 2})}},
		{Tenant: "t02", Streams: []workload.Stream{stream(2, 4, t0.Add(time.Second), names, []float64{2, 2, 1, 1})}},
	}
	a := AnalyticalOf(ts, 0.1, t0, t0, t0.Add(time.Hour))
	if !a.Complete || a.Executions != 8 {
		t.Fatalf("complete %v, %d executions", a.Complete, a.Executions)
	}
	// T_s: t01 runs 0..9 s, t02 1..7 s: 9 s over both.
	if a.TS != 9 || a.Tenants["t01"].TS != 9 || a.Tenants["t02"].TS != 6 {
		t.Errorf("T_s %v, tenants %+v", a.TS, a.Tenants)
	}
	// Throughput@Size = n x S x Q x 3600 / T_s x SF = 2 x 2 x 2 x 3600 / 9 x 0.1 = 320.
	if a.ThroughputAtSize == nil || !closeTo(*a.ThroughputAtSize, 320) {
		t.Errorf("Throughput@Size %v, want 320", a.ThroughputAtSize)
	}
	// Stream geometric means: t01 (1*4*2*2)^(1/4) = 2, t02 (2*2*1*1)^(1/4)
	// = sqrt 2; Power@Size = SF x 3600 / (2 x sqrt 2)^(1/2).
	g1, g2 := 2.0, math.Sqrt2
	if p := a.Tenants["t01"].PowerAtSize; p == nil || !closeTo(*p, 0.1*3600/g1) {
		t.Errorf("t01 Power@Size %v, want %v", p, 0.1*3600/g1)
	}
	if want := 0.1 * 3600 / math.Sqrt(g1*g2); a.PowerAtSize == nil || !closeTo(*a.PowerAtSize, want) {
		t.Errorf("Power@Size %v, want %v", a.PowerAtSize, want)
	}
	if len(a.Streams) != 2 || !closeTo(a.Streams[0].GeoMean, g1) || a.Streams[1].StartS != 1 || a.Streams[1].EndS != 7 {
		t.Errorf("streams %+v", a.Streams)
	}
	// Per query: t01's q01 took 1 and 4 s.
	q := a.Queries[0]
	if q.Tenant != "t01" || q.Query != "q01" || q.Executions != 2 || q.MeanS != 2.5 || q.MinS != 1 || q.MaxS != 4 || !closeTo(q.GeoMean, 2) {
		t.Errorf("t01 q01: %+v", q)
	}
	// E_CPU and E_RAM: n x S x 22 x SF per CPU second and per GB.
	var agg Aggregate
	agg.CPUS, agg.MemPeakMB = ptr(4), ptr(512)
	agg.SetAnalytical(a, 0.1)
	if agg.ECPU == nil || !closeTo(*agg.ECPU, 8*0.1/4) || agg.ERAM == nil || !closeTo(*agg.ERAM, 8*0.1/0.5) {
		t.Errorf("E_CPU %v, E_RAM %v", agg.ECPU, agg.ERAM)
	}

	d := &Dir{Path: t.TempDir()}
	if err := d.WriteAnalytical("001", a); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(d.Path, "runs", "001", "queries.csv"))
	if !strings.Contains(string(b), "001,t01,q01,2,0,2.500000,1.000000,4.000000,2.000000") {
		t.Errorf("queries.csv:\n%s", b)
	}
}

// TestAnalyticalIncomplete: a failed query, or one outside the measured
// window, leaves the run without Power@Size and Throughput@Size; the
// stream's own figures and the lost query remain.
func TestAnalyticalIncomplete(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	names := []string{"q01", "q06", "q14"}
	ts := []TenantStreams{{Tenant: "t01", Streams: []workload.Stream{stream(1, 3, t0, names, []float64{1, -2, 1})}}}
	a := AnalyticalOf(ts, 1, t0, t0, t0.Add(time.Hour))
	s := a.Streams[0]
	if a.Complete || a.PowerAtSize != nil || a.ThroughputAtSize != nil || s.Complete || s.Failed != 1 || s.Executed != 2 ||
		len(s.Lost) != 1 || s.Lost[0].Query != "q06" || s.PowerAtSize != nil {
		t.Errorf("%+v, stream %+v", a, s)
	}
	var agg Aggregate
	agg.CPUS = ptr(1)
	agg.SetAnalytical(a, 1)
	if agg.ECPU != nil {
		t.Errorf("E_CPU %v of an incomplete run", *agg.ECPU)
	}
	// The last query ends after the window: it does not count.
	ts = []TenantStreams{{Tenant: "t01", Streams: []workload.Stream{stream(1, 3, t0, names, []float64{1, 1, 5})}}}
	a = AnalyticalOf(ts, 1, t0, t0, t0.Add(3*time.Second))
	if a.Complete || a.Executions != 2 || a.TS != 2 {
		t.Errorf("windowed: complete %v, %d executions, T_s %v", a.Complete, a.Executions, a.TS)
	}
}

// TestAnalyticalRefresh: RF1 and RF2 are among a stream's times (TPC-H's
// Power@Size over 22 queries and 2 refresh functions, clause 5.4.1.1) but
// not among the queries Throughput@Size counts (clause 5.4.2.1).
func TestAnalyticalRefresh(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := stream(1, 4, t0, []string{"rf1", "q01", "q06", "rf2"}, []float64{4, 1, 1, 4})
	s.Execs[0].Refresh, s.Execs[3].Refresh = true, true
	a := AnalyticalOf([]TenantStreams{{Tenant: "t01", Streams: []workload.Stream{s}}}, 1, t0, t0, t0.Add(time.Hour))
	if !a.Complete || a.Executions != 2 || a.Streams[0].Executed != 4 {
		t.Fatalf("complete %v, %d query executions, stream %+v", a.Complete, a.Executions, a.Streams[0])
	}
	// Geometric mean (4 x 1 x 1 x 4)^(1/4) = 2: Power@Size 3600 / 2.
	if a.PowerAtSize == nil || !closeTo(*a.PowerAtSize, 1800) {
		t.Errorf("Power@Size %v, want 1800", a.PowerAtSize)
	}
	// 2 queries in T_s = 10 s: 2 x 3600 / 10 = 720.
	if a.ThroughputAtSize == nil || !closeTo(*a.ThroughputAtSize, 720) {
		t.Errorf("Throughput@Size %v, want 720", a.ThroughputAtSize)
	}
}
