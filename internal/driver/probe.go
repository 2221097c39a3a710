package driver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// A client that lacks some of its replicas (workload.Missed: one could not
// be reached when it connected, a replica restarting under fail-replica)
// reads from the others, or from its primary, while its tenant's probe
// tries the replicas on a goroutine of its own. The client reconnects,
// its primary with them (its workload prepared its statements on each
// connection), only once the probe has reached them all. Reconnecting on
// a timer instead to find out took the primary's connection down with
// every try: on a loaded machine each client spent up to a fifth of the
// outage reconnecting, and the tenant's writes lost throughput to a
// replica's failure that its server never lost.

// probeEvery is how often a tenant's probe tries the replicas, and so
// how long after a replica answers again its clients read from it at
// most (one connection per replica and try, for the whole tenant).
const probeEvery = 250 * time.Millisecond

// replicaProbe is a tenant's probe of its replicas. Its generation counts
// the times it reached them all; a client that missed one under an
// earlier generation reconnects.
type replicaProbe struct {
	ctx      context.Context // the clients': ends when they are stopped
	replicas []workload.Connect
	gen      atomic.Uint64
	mu       sync.Mutex
	running  bool
	wg       sync.WaitGroup
}

func newReplicaProbe(ctx context.Context, replicas []workload.Connect) *replicaProbe {
	return &replicaProbe{ctx: ctx, replicas: replicas}
}

// miss says a client could not reach a replica: it starts the probe if it
// is not running, and returns the generation the client missed under.
func (p *replicaProbe) miss() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	gen := p.gen.Load()
	if !p.running && p.ctx.Err() == nil {
		p.running = true
		p.wg.Add(1)
		go p.run()
	}
	return gen
}

// reachedSince says whether the probe reached every replica after gen.
func (p *replicaProbe) reachedSince(gen uint64) bool { return p.gen.Load() > gen }

func (p *replicaProbe) run() {
	defer p.wg.Done()
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.ctx.Done():
			p.mu.Lock()
			p.running = false
			p.mu.Unlock()
			return
		case <-tick.C:
		}
		var reached bool
		Beside(func() { reached = p.reach() })
		if reached {
			p.mu.Lock()
			p.gen.Add(1)
			p.running = false
			p.mu.Unlock()
			return
		}
	}
}

// reach connects to each replica as a client would, and closes what it
// opened; false at the first that does not answer.
func (p *replicaProbe) reach() bool {
	for _, rc := range p.replicas {
		ctx, cancel := context.WithTimeout(p.ctx, reconnectTimeout)
		c, err := rc(ctx)
		cancel()
		if err != nil {
			return false
		}
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		c.Close(ctx)
		cancel()
	}
	return true
}

// wait returns once the probe's goroutine has; its context must have
// ended, or it ends only when every replica answers.
func (p *replicaProbe) wait() { p.wg.Wait() }
