package driver

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestProgressSummary: up to 10 tenants get a progress line each; more
// get one line with their throughput together and its spread.
func TestProgressSummary(t *testing.T) {
	for _, n := range []int{3, 12} {
		var out bytes.Buffer
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("t%02d", i+1)
		}
		start := time.Now()
		c := NewCollector(start, 0, names, []string{"a"}, n, &out, time.Hour, "[x]")
		for i, tn := range c.tenants {
			tn.pCount, tn.pSum = int64(i+1)*10, float64(i+1)*10*2000 // i+1 tps over 10 s, 2 ms each
		}
		c.every = 10 * time.Second
		c.printProgress(start.Add(10 * time.Second))
		c.Close()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if n <= progressLines {
			if len(lines) != n || !strings.HasPrefix(lines[2], "[x] t03 progress: 10.0 s, 3.0 tps, lat 2.000 ms") {
				t.Errorf("%d tenants:\n%s", n, out.String())
			}
			continue
		}
		want := "[x] 12 tenants progress: 10.0 s, 78.0 tps (per tenant least 1.0, median 7.0, most 12.0), lat 2.000 ms, 0 failed"
		if len(lines) != 1 || lines[0] != want {
			t.Errorf("12 tenants:\n%s\nwant\n%s", out.String(), want)
		}
	}
}
