package driver

import (
	"testing"
	"time"
)

// TestWatch: an armed watch reports the first commit after its time, to
// the nanosecond, per tenant; a later arming drops a first commit before
// it and keeps one after it; recording with a watch allocates nothing.
func TestWatch(t *testing.T) {
	start := time.Now()
	c := NewCollector(start, 0, []string{"t01", "t02"}, []string{"a"}, 2, nil, 0, "")
	c.watch = newWatch(2)
	r0, r1 := c.Recorder(0), c.Recorder(1)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	r0.Record(0, at(10), time.Millisecond)
	if _, ok := c.watch.First(0); ok {
		t.Fatal("a disarmed watch saw a commit")
	}
	c.watch.Arm(0, at(100))
	c.watch.Arm(1, at(100))
	r0.Record(0, at(90), time.Millisecond) // ended before: not it
	r0.Record(0, at(150), time.Millisecond)
	r0.Record(0, at(170), time.Millisecond)
	if f, ok := c.watch.First(0); !ok || !f.Equal(at(150)) {
		t.Errorf("first commit of t01 after 100 ms: %v %v, want 150 ms", f.Sub(start), ok)
	}
	if _, ok := c.watch.First(1); ok {
		t.Error("t02 committed nothing yet its watch fired")
	}
	c.watch.Arm(0, at(160)) // the fault took service down later
	if _, ok := c.watch.First(0); ok {
		t.Error("a first commit before the new arming was kept")
	}
	r0.Record(0, at(200), time.Millisecond)
	c.watch.Arm(0, at(180)) // kept: 200 ms is after 180 ms
	if f, ok := c.watch.First(0); !ok || !f.Equal(at(200)) {
		t.Errorf("re-armed first commit %v %v, want 200 ms", f.Sub(start), ok)
	}
	allocs := testing.AllocsPerRun(1000, func() { r1.Record(0, at(300), time.Millisecond) })
	if f, ok := c.watch.First(1); !ok || !f.Equal(at(300)) {
		t.Errorf("t02's first commit %v %v, want 300 ms", f.Sub(start), ok)
	}
	r0.Flush()
	r1.Flush()
	c.Close()
	if allocs != 0 {
		t.Errorf("Record with a watch allocates %v times per call, want 0", allocs)
	}
}
