package report

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 2625, "0 500 1000 1500 2000 2500"},
		{0, 1.05, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 3, "0.0 0.5 1.0 1.5 2.0 2.5 3.0"},
		{0, 11, "0 2 4 6 8 10"},
		{0, 0.013, "0.000 0.005 0.010"},
		{5, 5, "5.000"},
	} {
		var labels []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("Ticks(%v, %v) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestFmtNum(t *testing.T) {
	for v, want := range map[float64]string{1234.56: "1234.6", 12.345: "12.35", 1.5: "1.500", 0.0728: "0.073",
		0: "0.000", 0.00012: "0.00012"} {
		if got := fmtNum(v); got != want {
			t.Errorf("fmtNum(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestYAxis: values over more than two orders of magnitude get a log
// axis; a zero, a narrow range or no value keep the linear one from 0.
func TestYAxis(t *testing.T) {
	for _, c := range []struct {
		lo, top float64
		log     bool
	}{{1, 1000, true}, {0.5, 49, false}, {0, 1000, false}, {math.Inf(1), 0, false}, {2, 201, true}} {
		p := plot.New()
		yAxis(p, c.lo, c.top)
		_, isLog := p.Y.Scale.(plot.LogScale)
		if isLog != c.log || (!isLog && p.Y.Min != 0) {
			t.Errorf("yAxis(%v, %v): log %v, min %v", c.lo, c.top, isLog, p.Y.Min)
		}
	}
}

// TestLogAxisDraws: a chart on a log axis, whiskers included, draws.
func TestLogAxisDraws(t *testing.T) {
	c := newChart("wide", "Tenants", "Throughput (tx/s)")
	xs, means, mins, maxs := []float64{1, 10, 100}, []float64{5000, 300, 20}, []float64{4000, 250, 10}, []float64{6000, 350, 30}
	eb, err := minMaxBars(xs, means, mins, maxs)
	if err != nil {
		t.Fatal(err)
	}
	c.Add(eb)
	yAxis(c.Plot, 10, 6000)
	if _, err := render(c); err != nil {
		t.Fatal(err)
	}
}
