package tpcc

import (
	"math"
	"time"
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
