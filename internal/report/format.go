package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fmtNum writes a value for tables: empty for NaN (the metrics package's
// "no value", docs of package metrics), fewer decimals for larger values
// so that columns stay readable, never an exponent.
func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.001 || a == 0:
		return strconv.FormatFloat(v, 'f', 3, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// fmtPct writes a fraction as a percentage with one decimal.
func fmtPct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64)
}

// fmtBytes writes a byte count in binary units.
func fmtBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", b), "0"), ".") + " " + units[i]
}
