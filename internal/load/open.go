package load

import (
	"math/rand/v2"
	"time"
)

// Open is the open load shape of Oracle 2014 ("Open Workload Model"): the
// load generator "maintains a previously configured request arrival rate"
// whatever the system does, and "connections are acquired from the
// connection pool on demand to serve transactions". The rate is the
// tenant's Profile, in arrivals per second.
//
// At most Pool transactions of a tenant are in flight. Oracle (2014) sizes the
// pool "twice as large as the average number of connections actually
// needed"; that number is the rate times the service time, which is not
// known before the run, so the spec gives it as workload.clients (the
// expected concurrency) and the pool defaults to twice that.
//
// An arrival that finds every connection busy waits for the next free one
// (OnFull "queue", as Oracle's (2014) generator "queues requests and eventually
// issues them at a later point in time") or is dropped ("drop"); either
// way it is counted. Latency is measured from the arrival's intended
// start, so queueing shows in it (coordinated omission is corrected);
// service time, from the actual start, is reported beside it.
type Open struct {
	Arrivals string // ArrivalsPoisson or ArrivalsUniform
	Pool     int
	OnFull   string // OnFullQueue or OnFullDrop
}

// Arrival processes and what to do with an arrival that finds no free
// connection.
const (
	ArrivalsPoisson = "poisson"
	ArrivalsUniform = "uniform"
	OnFullQueue     = "queue"
	OnFullDrop      = "drop"
)

// Arrivals is a tenant's sequence of intended start times. Arrival i (from
// 0) is due when the integral of the rate, Lambda(t), reaches x_i:
//
//	uniform:  x_i = i + 0.5                (evenly spaced at a constant rate)
//	poisson:  x_i = E_0 + ... + E_i, E ~ Exp(1)
//
// Mapping a unit-rate process through the inverse of Lambda gives exactly
// the time-varying rate of the profile; for the Poisson case that is a
// non-homogeneous Poisson process (the time-change theorem). No timer,
// goroutine or allocation is needed per arrival, and the sequence depends
// only on the profile and the seed. Not safe for concurrent use.
type Arrivals struct {
	cur     *Cursor
	poisson bool
	rng     *rand.Rand
	x       float64
	n       int64
}

// NewArrivals starts the arrival sequence of profile p.
func NewArrivals(p *Profile, process string, seed uint64) *Arrivals {
	return &Arrivals{cur: NewCursor(p), poisson: process == ArrivalsPoisson,
		rng: rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d)), x: 0}
}

// Next is the intended start of the next arrival, since the phase started,
// and false when the profile has no more.
func (a *Arrivals) Next() (time.Duration, bool) {
	if a.poisson {
		a.x += a.rng.ExpFloat64()
	} else {
		a.x = float64(a.n) + 0.5
	}
	a.n++
	return a.cur.Time(a.x)
}
