package report

import (
	"strings"
	"testing"
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
