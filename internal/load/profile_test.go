package load

import (
	"math"
	"testing"
	"time"
)

const s = time.Second

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSlotsProfile(t *testing.T) {
	p := Slots(60*s, []float64{0, 110, 0})
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{0, 0}, {59 * s, 0}, {60 * s, 110}, {119 * s, 110}, {120 * s, 0}, {180 * s, 0}, {-s, 0}} {
		if got := p.At(c.at); got != c.want {
			t.Errorf("At(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	if p.End() != 180*s || p.Max() != 110 {
		t.Errorf("End %v Max %v", p.End(), p.Max())
	}
	if got := p.Integral(0, 180*s); got != 6600 {
		t.Errorf("integral = %v, want 110 x 60", got)
	}
	if got := p.Mean(30*s, 90*s); got != 55 {
		t.Errorf("mean over half a zero slot and half a 110 slot = %v, want 55", got)
	}
}

// A ramp 0 -> 100 over 10 s then a hold of 10 s: the value is linear, the
// integral a triangle then a rectangle (k6's ramping executors use the
// same model of stages).
func TestStagesRamp(t *testing.T) {
	p := Stages(0, []Stage{{10 * s, 100}, {10 * s, 100}, {5 * s, 0}})
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{0, 0}, {2500 * time.Millisecond, 25}, {10 * s, 100}, {15 * s, 100}, {22500 * time.Millisecond, 50}, {25 * s, 0}} {
		if got := p.At(c.at); !near(got, c.want, 1e-9) {
			t.Errorf("At(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	if got := p.Integral(0, 10*s); !near(got, 500, 1e-9) {
		t.Errorf("ramp integral = %v, want 500", got)
	}
	if got := p.Integral(0, 25*s); !near(got, 500+1000+250, 1e-9) {
		t.Errorf("integral = %v, want 1750", got)
	}
	if got := p.Integral(5*s, 10*s); !near(got, 375, 1e-9) {
		t.Errorf("integral over the ramp's second half = %v, want 375", got)
	}
	// from a non-zero start
	q := Stages(20, []Stage{{10 * s, 40}})
	if got := q.At(5 * s); !near(got, 30, 1e-9) {
		t.Errorf("ramp from 20 at 5s = %v, want 30", got)
	}
}

// The cursor inverts the integral: Time(Integral(0, t)) == t.
func TestCursorInvertsIntegral(t *testing.T) {
	p := Stages(0, []Stage{{10 * s, 100}, {5 * s, 100}, {0, 0}, {10 * s, 0}, {10 * s, 50}, {10 * s, 10}})
	c := NewCursor(&p)
	for ms := 1; ms < 45000; ms += 37 {
		at := time.Duration(ms) * time.Millisecond
		x := p.Integral(0, at)
		if p.At(at) == 0 {
			continue // inside a pause the inverse is the pause's end
		}
		got, ok := c.Time(x)
		if !ok || (got-at).Abs() > time.Microsecond {
			t.Fatalf("Time(Integral(%v) = %v) = %v, %v", at, x, got, ok)
		}
	}
	if _, ok := c.Time(p.Integral(0, p.End()) + 1); ok {
		t.Error("Time beyond the end should be false")
	}
}

// A pause (zero slot) is skipped: the next arrival falls in the next
// non-zero slot.
func TestCursorSkipsPause(t *testing.T) {
	p := Slots(10*s, []float64{10, 0, 10})
	c := NewCursor(&p)
	if got, _ := c.Time(99.5); !near(got.Seconds(), 9.95, 1e-9) {
		t.Errorf("arrival 99.5 at %v, want 9.95s", got)
	}
	if got, _ := c.Time(100.5); !near(got.Seconds(), 20.05, 1e-9) {
		t.Errorf("arrival 100.5 at %v, want 20.05s (after the pause)", got)
	}
}

func TestWindow(t *testing.T) {
	p := Constant(10, 100*s).Window(20*s, 50*s)
	if p.At(19*s) != 0 || p.At(20*s) != 10 || p.At(49*s) != 10 || p.At(50*s) != 0 {
		t.Errorf("window: %+v", p.Segs)
	}
	r := Stages(0, []Stage{{100 * s, 100}}).Window(50*s, 0)
	if r.At(49*s) != 0 || !near(r.At(50*s), 50, 1e-9) || !near(r.At(99*s), 99, 1e-9) {
		t.Errorf("window of a ramp: %+v", r.Segs)
	}
}

func TestNextAtLeast(t *testing.T) {
	p := Stages(0, []Stage{{10 * s, 10}, {10 * s, 10}, {10 * s, 0}})
	for _, c := range []struct {
		from  time.Duration
		level float64
		want  time.Duration
		ok    bool
	}{
		{0, 0.5, 500 * time.Millisecond, true},
		{0, 9.5, 9500 * time.Millisecond, true},
		{12 * s, 9.5, 12 * s, true},
		{21 * s, 9.5, 0, false}, // falling from here on
		{0, 10.5, 0, false},
	} {
		got, ok := p.NextAtLeast(c.from, c.level)
		if ok != c.ok || (ok && (got-c.want).Abs() > time.Microsecond) {
			t.Errorf("NextAtLeast(%v, %v) = %v, %v; want %v, %v", c.from, c.level, got, ok, c.want, c.ok)
		}
	}
	q := Slots(10*s, []float64{3, 0, 5})
	if got, ok := NextActive(&q, 3, 0); !ok || got != 20*s {
		t.Errorf("client 3 of (3, 0, 5) next runs at %v %v, want 20s", got, ok)
	}
	if got, ok := NextActive(&q, 1, 11*s); !ok || got != 20*s {
		t.Errorf("client 1 after the pause resumes at %v %v, want 20s", got, ok)
	}
	if Clients(&q, 5*s) != 3 || Clients(&q, 15*s) != 0 || Clients(&q, 25*s) != 5 {
		t.Error("Clients per slot wrong")
	}
}

// Oracle 2014, Test 4: the same sinusoid for every tenant, shifted per
// tenant. Checks the formula, the shift and the sampling error.
func TestSinusoid(t *testing.T) {
	sn := Sinusoid{Mean: 100, Amplitude: 50, Period: 80 * s, Shift: 10 * s}
	for _, c := range []struct {
		tenant int
		at     time.Duration
		want   float64
	}{
		{0, 0, 100}, {0, 20 * s, 150}, {0, 40 * s, 100}, {0, 60 * s, 50},
		{1, 30 * s, 150}, // peak 10 s later
		{2, 40 * s, 150},
	} {
		p := sn.Profile(c.tenant, 160*s)
		if got := p.At(c.at); !near(got, c.want, 1e-9) {
			t.Errorf("tenant %d at %v = %v, want %v", c.tenant, c.at, got, c.want)
		}
		for ms := 0; ms < 160000; ms += 333 {
			at := time.Duration(ms) * time.Millisecond
			if d := math.Abs(p.At(at) - sn.Value(at, time.Duration(c.tenant)*sn.Shift)); d > 0.0013*sn.Amplitude {
				t.Fatalf("sampling error %v at %v", d, at)
			}
		}
	}
	// over whole periods the mean is the mean
	p := sn.Profile(1, 160*s)
	if got := p.Mean(0, 160*s); !near(got, 100, 0.01) {
		t.Errorf("mean over 2 periods = %v", got)
	}
}

func TestWindows(t *testing.T) {
	got := Windows(SlotStarts(60*s, 3), 0, 180*s)
	if len(got) != 3 || got[1] != 60*s || got[2] != 120*s {
		t.Errorf("slot windows %v", got)
	}
	got = Windows(nil, 60*s, 150*s)
	if len(got) != 3 || got[2] != 120*s {
		t.Errorf("every-60s windows %v", got)
	}
	got = Windows(StageStarts([]Stage{{10 * s, 1}, {0, 2}, {20 * s, 3}}), 0, 30*s)
	if len(got) != 2 || got[1] != 10*s {
		t.Errorf("stage windows %v (a zero-length stage is no window)", got)
	}
}
