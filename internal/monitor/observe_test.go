package monitor_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/monitor"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// TestObserve: Config.Observe is given each round's CPU and memory of a
// server whose processes this machine sees, and "not measured" (negative)
// for one it does not (the same server reached as the user's would be:
// no ResourceSampler).
func TestObserve(t *testing.T) {
	inst := pgtest.Start(t)
	borrowed := *inst
	borrowed.Name, borrowed.Control = "borrowed", nil
	var mu sync.Mutex
	got := map[string][]monitor.Latest{}
	m := monitor.New(monitor.Config{Instances: []*provider.Instance{inst, &borrowed}, Interval: 100 * time.Millisecond,
		Observe: func(l monitor.Latest) {
			mu.Lock()
			got[l.Instance] = append(got[l.Instance], l)
			mu.Unlock()
		}})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	admin := pgtest.Connect(t, inst, "postgres")
	if _, err := admin.Exec(context.Background(), "SELECT count(*) FROM generate_series(1, 3000000)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	m.Stop()
	mu.Lock()
	defer mu.Unlock()
	own := got[inst.Name]
	if len(own) < 3 {
		t.Fatalf("%d rounds observed of %s, want a few", len(own), inst.Name)
	}
	end := own[len(own)-1]
	if end.CPUSeconds <= 0 || end.MemoryBytes <= 0 || end.CPUSource == "" || end.MemorySource == "" {
		t.Errorf("last round of the server tenantbench started: %+v, want CPU and memory measured", end)
	}
	for _, l := range got["borrowed"] {
		if l.CPUSeconds >= 0 || l.MemoryBytes >= 0 {
			t.Errorf("a server without a sampler: %+v, want both not measured (negative)", l)
		}
	}
	if len(got["borrowed"]) == 0 {
		t.Error("no round observed of the server without a sampler")
	}
}
