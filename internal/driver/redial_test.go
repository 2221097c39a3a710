package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// testRedial: a client whose server went away retries with growing
// pauses (here up to 5 s); once its pause has grown to 1.6 s, the
// server answers again and Watch.Redial is called, as the run does when
// a fault's server is back: the client reconnects within half a second,
// not at the end of its pause.
func testRedial(t *testing.T, tn Tenant, inst *provider.Instance) {
	defer func(p time.Duration) { maxPause = p }(maxPause)
	maxPause = 5 * time.Second
	tn.Clients = 1
	var mu sync.Mutex
	down, failed := false, 0
	var back time.Time // when the client connected after the outage
	primary := tn.Connect
	tn.Connect = func(ctx context.Context) (workload.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			failed++
			return nil, errors.New("the server is down (refused by the test)")
		}
		c, err := primary(ctx)
		if err == nil && failed > 0 && back.IsZero() {
			back = time.Now()
		}
		return c, err
	}
	admin := pgtest.Connect(t, inst, "postgres")
	defer admin.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outage := make(chan error, 1)
	var redialed time.Time
	started := func(_ time.Time, w *Watch) {
		go func() {
			defer cancel()
			time.Sleep(300 * time.Millisecond)
			mu.Lock()
			down = true
			mu.Unlock()
			if _, err := admin.Exec(context.Background(),
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 't01' AND pid <> pg_backend_pid()"); err != nil {
				outage <- err
				return
			}
			// The seventh failure begins a pause of 1.6 s (25 ms doubled
			// six times).
			failures := func() int {
				mu.Lock()
				defer mu.Unlock()
				return failed
			}
			if !pollUntil(func() bool { return failures() >= 7 }) {
				outage <- fmt.Errorf("after 20 s, %d failed reconnections, want 7", failures())
				return
			}
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			down = false
			redialed = time.Now()
			mu.Unlock()
			w.Redial()
			time.Sleep(2 * time.Second) // past the pause's end
			outage <- nil
		}()
	}
	if _, err := Run(ctx, []Tenant{tn}, Options{Duration: time.Minute, Started: started}); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if err := <-outage; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if back.IsZero() {
		t.Fatal("the client did not reconnect")
	}
	took := back.Sub(redialed)
	t.Logf("%d failed reconnections; reconnected %v after Redial", failed, took)
	if failed != 7 || took > 500*time.Millisecond {
		t.Errorf("reconnected %v after Redial with %d failures, want within 500 ms and after 7 (its pause was 1.6 s)", took, failed)
	}
}
