package tpcc

import (
	"fmt"
	"math"
	"time"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Pacer is implemented by clients whose terminal waits a keying time
// before each transaction and a think time after it (clause 5.2.5). The
// driver sleeps keying after Pick and before Run, think after Run, both
// outside the measured response time (clause 5.2.5.1: the cycle is menu,
// keying, transaction, think). A client returns zeros when pacing is off.
type Pacer interface {
	Pace(typ int) (keying, think time.Duration)
}

var _ Pacer = (*Client)(nil)

// keyingTimes are the minimum keying times of clause 5.2.5.2, and
// meanThinkTimes the minimum mean think times of clause 5.2.5.4, by
// transaction type.
var (
	keyingTimes    = [numTxns]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	meanThinkTimes = [numTxns]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
)

// Pace is the keying and think time of the next transaction of type typ
// when the option keying_and_think_time is on, else zero. The think time
// is drawn from the negative exponential distribution of clause 5.2.5.4,
// Tt = -ln(r) * mean with r uniform in (0, 1], and cut at 10 times the
// mean.
func (c *Client) Pace(typ int) (keying, think time.Duration) {
	if !c.pacing || typ < 0 || typ >= numTxns {
		return 0, 0
	}
	r := (float64(c.r.pcg.Uint64()>>11) + 1) / (1 << 53)
	mean := meanThinkTimes[typ]
	think = time.Duration(-math.Log(r) * float64(mean))
	return keyingTimes[typ], min(think, 10*mean)
}

// meanCycle is a terminal's mean keying plus think time per transaction
// for mix (the transaction's own time aside): 21 s for 45/43/4/4/4.
func meanCycle(mix [numTxns]int) time.Duration {
	var d time.Duration
	for t, p := range mix {
		d += time.Duration(p) * (keyingTimes[t] + meanThinkTimes[t]) / 100
	}
	return d
}

// checkSpec refuses keying and think times that the run could not honour
// (bad input, before anything starts): under an open load (arrivals come from
// the rate, not from terminals), together with workload.load.think
// (clause 5.2.5 sets the think time), or with a measured duration shorter
// than one mean cycle, where most terminals would not finish a transaction
// and the transactions that do finish are those with the shortest keying
// times, not the mix.
func checkSpec(opts any, w *spec.Workload, path string) []spec.Problem {
	o, ok := opts.(Options)
	if !ok || !o.KeyingAndThinkTime {
		return nil
	}
	var out []spec.Problem
	key := path + ".keying_and_think_time"
	if !w.Shape().Target().Clients {
		out = append(out, spec.Problem{Path: key, Value: "true",
			Allowed: "needs a closed load: an open load's arrivals come from workload.load.rate, not from terminals' keying and think times (clause 5.2.5); remove it or use workload.load.shape: closed"})
	} else if w.Load.Think > 0 {
		out = append(out, spec.Problem{Path: "workload.load.think", Value: time.Duration(w.Load.Think).String(),
			Allowed: "cannot be combined with " + key + ", whose think times are those of clause 5.2.5.4: remove one of them"})
	}
	if c := meanCycle(o.Mix); time.Duration(w.Duration) < c {
		out = append(out, spec.Problem{Path: "workload.duration", Value: time.Duration(w.Duration).String(),
			Allowed: fmt.Sprintf("with %s a terminal's mean keying and think time is %v per transaction for this mix (clause 5.2.5), "+
				"so the duration would not measure one transaction per terminal and the mix could not be honoured: at least %v", key, c, c)})
	}
	return out
}
