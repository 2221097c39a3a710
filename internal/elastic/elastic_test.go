package elastic

import (
	"context"
	"math"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

func TestDecide(t *testing.T) {
	a := Autoscale{Min: 0.25, Max: 2, Target: 0.5}
	for _, tc := range []struct{ quota, used, want float64 }{
		{1, 1, 2},          // saturated: twice, at most Max
		{0.5, 0.5, 1},      // saturated: 1/Target more
		{1, 0.5, 1},        // on target: kept
		{1, 0.53, 1},       // within Tolerance: kept
		{1, 0.3, 0.6},      // under: down to used / Target
		{1, 0, 0.25},       // idle: Min at once
		{0.25, 0, 0.25},    // idle at Min: kept
		{2, 1.9, 2},        // wants more than Max
		{0.3, 0.123, 0.25}, // rounded, then bounded
	} {
		if got := Decide(a, tc.quota, tc.used); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Decide(quota %v, used %v) = %v, want %v", tc.quota, tc.used, got, tc.want)
		}
	}
}

// group is a real cgroup as a Resizer.
type group struct{ g *cgroup.Group }

func (r group) Resize(cpus float64, mem int64) error {
	return r.g.Resize(cgroup.Limits{CPUs: cpus, MemoryBytes: mem})
}
func (r group) CPUSeconds() (float64, error) { return r.g.CPUSeconds() }

// testGroup is a cgroup of this test with limits l, removed after it.
func testGroup(t *testing.T, name string, l cgroup.Limits) *cgroup.Group {
	t.Helper()
	sys := cgroup.Detect()
	if sys.Mode == cgroup.None {
		t.Skip(sys.Reason)
	}
	g, err := sys.Create("/tenantbench/test-elastic-"+strconv.Itoa(os.Getpid())+"/"+name, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Remove(5 * time.Second); err != nil {
			t.Error(err)
		}
	})
	return g
}

// start runs name in g until the test ends.
func start(t *testing.T, g *cgroup.Group, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd, done, err := g.Command(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestScheduleLive applies a schedule of three slots to a real cgroup
// holding a process and reads the kernel's limits back in each slot.
func TestScheduleLive(t *testing.T) {
	g := testGroup(t, "schedule", cgroup.Limits{CPUs: 1, MemoryBytes: 256 << 20})
	start(t, g, "sleep", "30")
	slot := 700 * time.Millisecond
	steps := []Step{{0, 0.3, 192 << 20}, {slot, 0.7, 320 << 20}, {2 * slot, 0.2, 0}}
	t0 := time.Now()
	c := Start(context.Background(), Policy{Schedule: steps}, []Server{{Name: "a", Resizer: group{g}, CPUs: 1,
		MemoryBytes: 256 << 20}}, t0)
	for i, st := range steps {
		// Read in the middle of the slot.
		time.Sleep(time.Until(t0.Add(st.At + slot/2)))
		got, err := g.Quota()
		if err != nil {
			t.Fatal(err)
		}
		if got.CPUs != st.CPUs || got.MemoryBytes != st.MemoryBytes {
			t.Errorf("slot %d: the cgroup holds %+v, want %v CPUs and %d bytes", i, got, st.CPUs, st.MemoryBytes)
		}
	}
	changes, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := g.Quota()
	if got.CPUs != 1 || got.MemoryBytes != 256<<20 {
		t.Errorf("after Stop the cgroup holds %+v, not its starting limits", got)
	}
	want := []string{ReasonStart, ReasonSchedule, ReasonSchedule, ReasonSchedule, ReasonRestore}
	if len(changes) != len(want) {
		t.Fatalf("changes %+v", changes)
	}
	for i, ch := range changes {
		if ch.Reason != want[i] || ch.Err != "" {
			t.Errorf("change %d: %+v, want reason %s", i, ch, want[i])
		}
		if i >= 1 && i <= 3 {
			if at := steps[i-1].At; ch.At < at || ch.At > at+200*time.Millisecond {
				t.Errorf("change %d at %v, its slot starts at %v", i, ch.At, at)
			}
			if ch.NewCPUs != steps[i-1].CPUs || ch.OldCPUs != changes[i-1].NewCPUs {
				t.Errorf("change %d: %+v", i, ch)
			}
		}
	}
}

// TestAutoscaleLive runs a CPU load in a real cgroup under autoscale: the
// quota must rise while the load uses all of it, and fall to the least
// once the load stops.
func TestAutoscaleLive(t *testing.T) {
	if _, err := exec.LookPath("stress-ng"); err != nil {
		t.Skip("stress-ng is not installed")
	}
	g := testGroup(t, "autoscale", cgroup.Limits{CPUs: 0.1})
	load := start(t, g, "stress-ng", "--cpu", "1", "--timeout", "60s", "--quiet")
	a := Autoscale{Min: 0.05, Max: 1, Target: 0.5, Interval: time.Second}
	c := Start(context.Background(), Policy{Autoscale: &a}, []Server{{Name: "a", Resizer: group{g}, CPUs: 0.1}}, time.Now())
	defer c.Stop()
	// Under load: 0.1 doubles each second while the load gets its quota
	// (0.2, 0.4, 0.8, 1). On a busy machine the load gets less than its
	// quota and the quota rises slower: twice the start is the least a
	// load that gets half its quota brings.
	peak := 0.0
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && peak < 0.4; {
		time.Sleep(250 * time.Millisecond)
		q, err := g.Quota()
		if err != nil {
			t.Fatal(err)
		}
		peak = math.Max(peak, q.CPUs)
	}
	if peak < 0.2 {
		changes, _ := c.Stop()
		t.Fatalf("the quota rose to %v under a CPU load, want at least 0.2: %+v", peak, changes)
	}
	_ = load.Process.Kill()
	_ = load.Wait()
	var q cgroup.Limits
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		var err error
		if q, err = g.Quota(); err != nil {
			t.Fatal(err)
		}
		if q.CPUs == a.Min {
			break
		}
	}
	if q.CPUs != a.Min {
		t.Fatalf("idle, the quota stayed at %v, want %v", q.CPUs, a.Min)
	}
	changes, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var up, down bool
	for _, ch := range changes {
		if ch.Reason != ReasonAutoscale {
			continue
		}
		up = up || (ch.NewCPUs > ch.OldCPUs && ch.Utilization > 0.5)
		down = down || (ch.NewCPUs < ch.OldCPUs && ch.Utilization < 0.5)
	}
	if !up || !down {
		t.Errorf("changes do not show a rise under load and a fall idle: %+v", changes)
	}
	if last := changes[len(changes)-1]; last.Reason != ReasonRestore || last.NewCPUs != 0.1 {
		t.Errorf("last change %+v, want the restore to 0.1", last)
	}
	if q, _ := g.Quota(); q.CPUs != 0.1 {
		t.Errorf("after Stop the quota is %v, want the starting 0.1", q.CPUs)
	}
}
