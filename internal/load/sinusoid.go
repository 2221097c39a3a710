package load

import (
	"math"
	"time"
)

// Sinusoid is a target that swings around Mean by Amplitude once every
// Period. Oracle 2014 (Test 4, "Elasticity") drives 8 databases with "an
// identical sinus curve for all 8 databases, which is slightly shifted
// between databases so that their peaks do not fully align but still
// partially overlap": tenant i (from 0) is shifted by i x Shift.
type Sinusoid struct {
	Mean, Amplitude float64
	Period          time.Duration
	Shift           time.Duration // per tenant
}

// Value is the target at t of the tenant shifted by shift:
// Mean + Amplitude * sin(2 pi (t - shift) / Period).
func (s Sinusoid) Value(t, shift time.Duration) float64 {
	return s.Mean + s.Amplitude*math.Sin(2*math.Pi*secs(t-shift)/secs(s.Period))
}

// MaxSamples bounds the pieces of a sampled sinusoid.
const MaxSamples = 100_000

// Profile samples the sinusoid of tenant i up to end into straight pieces
// of at most a second and 1/64 of the period; between samples the profile
// is linear, off the curve by less than 0.13 % of the amplitude. Over a
// phase so long that this would take more than MaxSamples pieces, the
// pieces are longer.
func (s Sinusoid) Profile(tenant int, end time.Duration) Profile {
	shift := time.Duration(tenant) * s.Shift
	step := min(time.Second, s.Period/64)
	step = max(step, end/MaxSamples, time.Millisecond)
	var p Profile
	for t := time.Duration(0); t < end; t += step {
		hi := min(t+step, end)
		p.Segs = append(p.Segs, Segment{Start: t, End: hi, From: max(0, s.Value(t, shift)), To: max(0, s.Value(hi, shift))})
	}
	return p
}
