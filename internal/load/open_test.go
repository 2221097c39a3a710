package load

import (
	"math"
	"testing"
	"time"
)

func count(a *Arrivals, from, to time.Duration) (n int) {
	for {
		t, ok := a.Next()
		if !ok || t >= to {
			return n
		}
		if t >= from {
			n++
		}
	}
}

// Uniform arrivals at a constant rate are evenly spaced: 200/s for 10 s is
// exactly 2,000 arrivals, 5 ms apart.
func TestUniformArrivals(t *testing.T) {
	p := Constant(200, 10*s)
	a := NewArrivals(&p, ArrivalsUniform, 1)
	prev := time.Duration(-1)
	n := 0
	for {
		at, ok := a.Next()
		if !ok {
			break
		}
		if prev >= 0 && (at-prev-5*time.Millisecond).Abs() > time.Nanosecond {
			t.Fatalf("gap %v at arrival %d", at-prev, n)
		}
		prev = at
		n++
	}
	if n != 2000 {
		t.Errorf("%d arrivals, want 2000", n)
	}
}

// Poisson arrivals: the count over 100 s at 200/s is 20,000 give or take
// a few standard deviations (sqrt(20000) = 141), and the gaps are
// exponential (coefficient of variation 1).
func TestPoissonArrivals(t *testing.T) {
	p := Constant(200, 100*s)
	a := NewArrivals(&p, ArrivalsPoisson, 7)
	var gaps []float64
	prev := time.Duration(0)
	for {
		at, ok := a.Next()
		if !ok {
			break
		}
		gaps = append(gaps, (at - prev).Seconds())
		prev = at
	}
	if n := float64(len(gaps)); math.Abs(n-20000) > 4*math.Sqrt(20000) {
		t.Errorf("%v arrivals, want 20000 +- 4 sd", n)
	}
	mean, sq := 0.0, 0.0
	for _, g := range gaps {
		mean += g
		sq += g * g
	}
	mean /= float64(len(gaps))
	cv := math.Sqrt(sq/float64(len(gaps))-mean*mean) / mean
	if math.Abs(mean-0.005) > 0.0002 || math.Abs(cv-1) > 0.05 {
		t.Errorf("gaps: mean %v (want 5ms), cv %v (want 1)", mean, cv)
	}
	// deterministic for a seed
	b, c := NewArrivals(&p, ArrivalsPoisson, 7), NewArrivals(&p, ArrivalsPoisson, 7)
	for range 100 {
		x, _ := b.Next()
		y, _ := c.Next()
		if x != y {
			t.Fatal("same seed, different arrivals")
		}
	}
}

// A time-varying rate: arrivals per slot follow the slots, none in a
// pause; a ramp from 0 to 100/s over 10 s gives 500 arrivals, a quarter of
// them in the first half.
func TestArrivalsFollowSchedule(t *testing.T) {
	p := Slots(10*s, []float64{50, 0, 150})
	for _, process := range []string{ArrivalsUniform, ArrivalsPoisson} {
		for i, want := range []float64{500, 0, 1500} {
			a := NewArrivals(&p, process, 3)
			got := float64(count(a, time.Duration(i)*10*s, time.Duration(i+1)*10*s))
			if math.Abs(got-want) > 4*math.Sqrt(want)+1 {
				t.Errorf("%s slot %d: %v arrivals, want %v", process, i, got, want)
			}
		}
	}
	r := Stages(0, []Stage{{10 * s, 100}})
	a := NewArrivals(&r, ArrivalsUniform, 1)
	if got := count(a, 0, 5*s); got != 125 {
		t.Errorf("first half of the ramp: %d, want 125", got)
	}
	a = NewArrivals(&r, ArrivalsUniform, 1)
	if got := count(a, 0, 10*s); got != 500 {
		t.Errorf("ramp: %d, want 500", got)
	}
}

// The sequence is cheap: no allocation per arrival.
func TestArrivalsNoAllocs(t *testing.T) {
	p := Sinusoid{Mean: 1000, Amplitude: 500, Period: 60 * s}.Profile(0, 3600*s)
	a := NewArrivals(&p, ArrivalsPoisson, 1)
	if n := testing.AllocsPerRun(10000, func() { a.Next() }); n != 0 {
		t.Errorf("Next allocates %v times", n)
	}
}

func BenchmarkArrivalsNext(b *testing.B) {
	p := Sinusoid{Mean: 20000, Amplitude: 10000, Period: 60 * s}.Profile(0, 36000*s)
	a := NewArrivals(&p, ArrivalsPoisson, 1)
	for b.Loop() {
		a.Next()
	}
}
