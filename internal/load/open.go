package load

import (
	"fmt"
	"math/rand/v2"
	"strconv"
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

// MaxRate bounds an open load's rate per tenant: beyond it the driver,
// not the DBMS, would be measured.
const MaxRate = 1_000_000

func init() { register(Open{}) }

// Name is "open".
func (Open) Name() string { return "open" }

// Keys: rate, arrivals, pool and on_full.
func (Open) Keys() []string { return []string{"rate", "arrivals", "pool", "on_full"} }

// Defaults: poisson arrivals, queued when the pool is full. The pool's
// default depends on workload.clients, so Conns resolves it.
func (Open) Defaults(s *Settings) {
	if s.Arrivals == "" {
		s.Arrivals = ArrivalsPoisson
	}
	if s.OnFull == "" {
		s.OnFull = OnFullQueue
	}
}

// RateRule is what one rate of workload.load.rate may be.
func RateRule(v float64) string {
	if !(v > 0) || v > MaxRate {
		return fmt.Sprintf("must be a number greater than 0 and at most %d (arrivals per second per tenant)", MaxRate)
	}
	return ""
}

// Check: known arrival process and full-pool behaviour, a pool within the
// connection limit and not beside workload.clients (which only sizes the
// default pool), and the rate given exactly when no schedule or pattern
// gives it.
func (Open) Check(s *Settings, c Context) []Issue {
	var out []Issue
	if s.Arrivals != "" && s.Arrivals != ArrivalsPoisson && s.Arrivals != ArrivalsUniform {
		out = append(out, Issue{Key: "load.arrivals", Value: true, Allowed: "must be " + ArrivalsPoisson + " or " + ArrivalsUniform})
	}
	if s.OnFull != "" && s.OnFull != OnFullQueue && s.OnFull != OnFullDrop {
		out = append(out, Issue{Key: "load.on_full", Value: true, Allowed: "must be " + OnFullQueue + " or " + OnFullDrop})
	}
	if s.Pool < 0 || s.Pool > c.MaxClients {
		out = append(out, Issue{Key: "load.pool", Value: true,
			Allowed: fmt.Sprintf("must be 1..%d connections per tenant, or 0 for twice workload.clients", c.MaxClients)})
	}
	if s.Pool > 0 && c.Clients {
		out = append(out, Issue{Key: "clients",
			Allowed: "with workload.load.pool given, workload.clients (the expected concurrency the pool defaults from) has no use: remove one of them"})
	}
	switch {
	case c.SetsTarget && s.Rate != nil:
		out = append(out, Issue{Key: "load.rate", Allowed: "the schedule or pattern sets the rate: remove workload.load.rate"})
	case !c.SetsTarget && s.Rate == nil:
		out = append(out, Issue{Key: "load.rate", Allowed: "required for shape: open: arrivals per second per tenant " +
			"(or give the rates with workload.schedule or workload.pattern)"})
	case s.Rate != nil:
		out = append(out, Issue{Key: "load.rate", Each: RateRule})
	}
	return out
}

// Configure takes the arrival process, pool and full-pool behaviour,
// with their defaults; a pool of 0 is twice workload.clients (Conns).
func (Open) Configure(s *Settings) Shape {
	d := *s
	Open{}.Defaults(&d)
	return Open{Arrivals: d.Arrivals, Pool: d.Pool, OnFull: d.OnFull}
}

// Target: a rate of arrivals.
func (Open) Target() Target {
	return Target{Unit: "arrivals per second", Tau: "the arrival rate at which the system reaches its resource limit"}
}

// CheckTarget: at most MaxRate.
func (Open) CheckTarget(x float64, _ Context) string {
	if x > MaxRate {
		return fmt.Sprintf("must be at most %d arrivals per second", MaxRate)
	}
	return ""
}

// Conns is the pool, whatever the rate: Oracle 2014 sizes it "twice as
// large as the average number of connections actually needed", and
// workload.clients is that number.
func (o Open) Conns(_ float64, clients int) int {
	if o.Pool > 0 {
		return o.Pool
	}
	return 2 * clients
}

// Resolve sets the pool to the run's connections.
func (o Open) Resolve(conns int) Shape {
	o.Pool = conns
	return o
}

// Describe names the arrival process, the pool and what a full pool does.
func (o Open) Describe(bool) string {
	pool := "2 x workload.clients"
	if o.Pool > 0 {
		pool = strconv.Itoa(o.Pool)
	}
	verb := map[string]string{OnFullQueue: "queued", OnFullDrop: "dropped"}[o.OnFull]
	return fmt.Sprintf("open: %s arrivals, a pool of %s connections per tenant, an arrival that finds none free is %s", o.Arrivals, pool, verb)
}

// Loop is the arrival loop.
func (o Open) Loop() Loop { return Loop{Runner: ArrivalLoop, Arrivals: o.Arrivals, OnFull: o.OnFull} }

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
