package driver

import (
	"testing"
	"time"
)

// TestRedialAfter: a client that misses a replica retries every 250 ms
// while reconnecting is quick, and spends at most a fifth of its time on
// retries when it is slow.
func TestRedialAfter(t *testing.T) {
	for _, c := range []struct{ took, want time.Duration }{
		{5 * time.Millisecond, 250 * time.Millisecond},
		{62 * time.Millisecond, 250 * time.Millisecond},
		{100 * time.Millisecond, 400 * time.Millisecond},
		{2 * time.Second, 8 * time.Second},
	} {
		if got := redialAfter(c.took); got != c.want {
			t.Errorf("reconnection of %v: retry after %v, want %v", c.took, got, c.want)
		}
	}
}
