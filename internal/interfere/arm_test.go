package interfere

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// arm is one call of Commits.Arm.
type arm struct {
	tenant int
	after  time.Time
}

// commitLog is the driver's commit watch as the runner sees it: it keeps
// every arming, and reports resumeAt as each tenant's first commit once
// the tenant was armed no later than that.
type commitLog struct {
	mu       sync.Mutex
	arms     []arm
	resumeAt time.Time
}

func (a arm) String() string {
	return fmt.Sprintf("t%d after %s", a.tenant, a.after.Format("15:04:05.000000"))
}

func (c *commitLog) Arm(tenant int, after time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.arms = append(c.arms, arm{tenant, after})
}

func (c *commitLog) Redial() {}

func (c *commitLog) First(tenant int) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var last time.Time
	for _, a := range c.arms {
		if a.tenant == tenant {
			last = a.after
		}
	}
	if c.resumeAt.IsZero() || last.IsZero() || last.After(c.resumeAt) {
		return time.Time{}, false
	}
	return c.resumeAt, true
}

func (c *commitLog) snapshot() []arm {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]arm(nil), c.arms...)
}

// downing is a fault that, as a provider's restart does, tells its
// context the moment the server went down (first a time before the
// injection, which must be ignored), and reports that moment. It records
// the armings seen before it returns.
type downing struct {
	commits *commitLog
	early   time.Time
	down    chan time.Time
	during  chan []arm
}

func (downing) Name() string                                   { return "downing" }
func (downing) Keys() []string                                 { return nil }
func (downing) Parse(*spec.Decoder, *yaml.Node, string) Params { return nil }
func (downing) Lasts() bool                                    { return false }
func (downing) Fault() bool                                    { return true }
func (downing) Host() bool                                     { return false }
func (d downing) Inject(ctx context.Context, _ *Occurrence) (Observed, error) {
	provider.NoteDown(ctx, d.early)
	time.Sleep(5 * time.Millisecond) // the down comes after the injection began
	at := time.Now()
	provider.NoteDown(ctx, at)
	d.during <- d.commits.snapshot()
	d.commits.mu.Lock()
	d.commits.resumeAt = at.Add(time.Millisecond)
	d.commits.mu.Unlock()
	d.down <- at
	return Observed{Down: at, Ready: at.Add(time.Millisecond)}, nil
}

// TestFaultArmsAtDown: a fault arms the commit watch of its server's
// tenants (not the other server's) when it is injected, again the moment
// the provider says the server went down (while the fault is still being
// injected, so that commits on a promoted server or on the primary end
// the outage), and once more at Observed.Down when the injection returns;
// a down reported before the injection is ignored. Resumed is the first
// commit after the last arming.
func TestFaultArmsAtDown(t *testing.T) {
	c := &commitLog{}
	k := downing{commits: c, early: time.Now().Add(-time.Hour), down: make(chan time.Time, 1), during: make(chan []arm, 1)}
	env := &Env{
		Servers: map[string]*provider.Instance{"s1": {Name: "s1"}, "s2": {Name: "s2"}},
		Tenants: []Tenant{{Name: "t1", Server: "s1"}, {Name: "t2", Server: "s2"}, {Name: "t3", Server: "s1"}},
		Commits: c,
	}
	ev := Event{Path: "interference[0]", Kind: k, Target: "s1", Params: noParams{}}
	r := Start(context.Background(), []Event{ev}, time.Minute, env, time.Now())
	down := <-k.down
	during := <-k.during
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The record is kept once the tenants resumed: Stop before
		// that would end the wait with the phase.
		if len(c.snapshot()) >= 6 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	recs := r.Stop()
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	rec := recs[0]
	if rec.Err != nil {
		t.Fatalf("record error: %v", rec.Err)
	}
	if got := rec.Tenants; len(got) != 2 || got[0] != "t1" || got[1] != "t3" {
		t.Errorf("affected tenants %v, want [t1 t3] (s1's)", got)
	}
	want := []arm{{0, rec.Start}, {2, rec.Start}, {0, down}, {2, down}}
	if !sameArms(during, want) {
		t.Errorf("armed while injecting %v, want %v: at the injection, then at the down, not at the early one", during, want)
	}
	all := c.snapshot()
	if want := append(want, arm{0, down}, arm{2, down}); !sameArms(all, want) {
		t.Errorf("armed in all %v, want %v: again at Observed.Down", all, want)
	}
	if want := down.Add(time.Millisecond); !rec.Resumed.Equal(want) {
		t.Errorf("Resumed %v, want the first commit after the down, %v", rec.Resumed, want)
	}
}

func sameArms(a, b []arm) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].tenant != b[i].tenant || !a[i].after.Equal(b[i].after) {
			return false
		}
	}
	return true
}
