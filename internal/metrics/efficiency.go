package metrics

import (
	"fmt"
	"math"
)

// ETpX is the throughput efficiency of Erdelt and Rabl 2026 (section 5.1.1,
// eq. 1):
//
//	E_TpX = Goodput × d / CPUs
//
// goodput is the throughput of successfully completed requests, in requests
// per second, summed over tenants (Erdelt and Rabl 2026, section 5.1);
// durationSeconds is d, the execution time of the workload in seconds (600 in
// the paper); cpuSeconds is the paper's "CPUs": the CPU time in seconds the
// system under test consumed during that workload (the results column cpu_s).
// The result is in successful requests per CPU-second.
//
// Ambiguity resolved: the symbol "CPUs" reads like a number of cores, but
// the paper calls E_TpX "the number of successful queries executed per
// second of CPU time" and its discussion (section 6) counts CPU in
// CPU-seconds, so CPUs is CPU time, not a core count.
//
// goodput may be zero (the result is then 0); durationSeconds and cpuSeconds
// must be greater than zero.
func ETpX(goodput, durationSeconds, cpuSeconds float64) (float64, error) {
	if err := nonNegative("goodput", goodput); err != nil {
		return math.NaN(), err
	}
	if err := positive("duration", durationSeconds); err != nil {
		return math.NaN(), err
	}
	if err := positive("cpu seconds", cpuSeconds); err != nil {
		return math.NaN(), err
	}
	return goodput * durationSeconds / cpuSeconds, nil
}

// ELat is the latency efficiency of Erdelt and Rabl 2026 (section 5.1.1,
// eq. 2):
//
//	E_Lat = 1 / sqrt(Latency × CPUs)
//
// latencySeconds is the average request latency in seconds (for the
// provider's perspective the macro-average over tenants,
// Erdelt and Rabl 2026, section 5.1); cpuSeconds is CPU time in seconds, as
// for ETpX. The result is in 1/s (1 / sqrt(s × CPU-s)); higher is better.
// Both inputs must be greater than zero.
//
// Note the unit: results store latency in milliseconds; divide by 1000.
func ELat(latencySeconds, cpuSeconds float64) (float64, error) {
	if err := positive("latency", latencySeconds); err != nil {
		return math.NaN(), err
	}
	if err := positive("cpu seconds", cpuSeconds); err != nil {
		return math.NaN(), err
	}
	return 1 / math.Sqrt(latencySeconds*cpuSeconds), nil
}

// Streams describes the analytical workload of Erdelt and Rabl 2026,
// section 5.2: S query streams (one per tenant), each executing Queries
// distinct queries N times, on data of scale factor SF.
type Streams struct {
	// S is the number of query streams; Erdelt and Rabl (2026) interpret each
	// tenant as one stream.
	S int
	// Queries is the number of distinct queries per stream: 22 for TPC-H.
	Queries int
	// N is how many times each query is executed per stream: the paper's
	// additional factor n (n = 10 in Erdelt and Rabl 2026; n = 1 is the TPC-H
	// specification).
	N int
	// SF is the scale factor.
	SF float64
}

func (s Streams) validate() error {
	if err := positiveInt("streams S", s.S); err != nil {
		return err
	}
	if err := positiveInt("queries per stream", s.Queries); err != nil {
		return err
	}
	if err := positiveInt("repetitions n", s.N); err != nil {
		return err
	}
	return positive("scale factor", s.SF)
}

// executions is n × S × queries, the number of query executions of the run.
func (s Streams) executions() float64 {
	return float64(s.N) * float64(s.S) * float64(s.Queries)
}

// ThroughputAtSize is Throughput@Size of Erdelt and Rabl 2026 (section 5.2,
// eq. 3):
//
//	Throughput@Size = n × S × 22 × 3600 / T_s × SF
//
// with 22 generalised to s.Queries. totalSeconds is T_s, the total execution
// time in seconds "measured from the start of the first query to the
// completion of the last" over all streams. The result is in queries per
// hour times SF; for S = 1 and n = 1 it is the TPC-H Throughput@Size
// without update streams.
func ThroughputAtSize(s Streams, totalSeconds float64) (float64, error) {
	if err := s.validate(); err != nil {
		return math.NaN(), err
	}
	if err := positive("total time T_s", totalSeconds); err != nil {
		return math.NaN(), err
	}
	return s.executions() * 3600 / totalSeconds * s.SF, nil
}

// PowerAtSize is Power@Size of Erdelt and Rabl 2026 (section 5.2, eq. 4) for
// one stream, the per-tenant figure (the tenant's perspective,
// Erdelt and Rabl 2026, Fig. 12):
//
//	Power@Size = SF × 3600 / T
//
// where T is the geometric mean of the stream's query execution times in
// seconds (its n × 22 = 220 executions in the paper; the n factor enters
// through the number of times given, each execution counted once).
// Every time must be greater than zero.
func PowerAtSize(sf float64, queryTimesSeconds []float64) (float64, error) {
	return PowerAtSizeStreams(sf, [][]float64{queryTimesSeconds})
}

// PowerAtSizeStreams is Power@Size of Erdelt and Rabl 2026 (section 5.2,
// eq. 4) over S streams, the provider's figure:
//
//	Power@Size = SF × 3600 / (T_1 × ... × T_S)^(1/S)
//
// where T_i is the geometric mean of the execution times (seconds) of the
// queries of stream i. The paper notes that this equals the geometric mean
// over all n × 22 × S executions; that holds when every stream has the same
// number of executions. When they differ, this function follows eq. 4 (each
// stream weighs the same), not the pooled mean. The TPC-H specification's
// lower clamp of very short query times is not applied:
// Erdelt and Rabl (2026) do not use it. For S = 1 and n = 1 it is the TPC-H
// Power@Size without refresh functions.
func PowerAtSizeStreams(sf float64, streams [][]float64) (float64, error) {
	if err := positive("scale factor", sf); err != nil {
		return math.NaN(), err
	}
	if len(streams) == 0 {
		return math.NaN(), fmt.Errorf("%w: streams", ErrEmpty)
	}
	means := make([]float64, len(streams))
	for i, times := range streams {
		if err := positiveAll(fmt.Sprintf("stream %d query times", i), times); err != nil {
			return math.NaN(), err
		}
		means[i] = geoMean(times)
	}
	return sf * 3600 / geoMean(means), nil
}

// ECPU is the CPU efficiency of Erdelt and Rabl 2026 (section 5.2.1, eq. 5):
//
//	E_CPU = Throughput@Size × T_s / (3600 × CPUs) = n × S × 22 × SF / CPUs
//
// computed from its right-hand form, which needs no T_s. cpuSeconds is the
// CPU time in seconds of the system under test during the workload (the
// paper: "queries completed per second of CPU time"; as for ETpX, "CPUs" is
// CPU time). The result is in SF-weighted queries per CPU-second.
func ECPU(s Streams, cpuSeconds float64) (float64, error) {
	if err := s.validate(); err != nil {
		return math.NaN(), err
	}
	if err := positive("cpu seconds", cpuSeconds); err != nil {
		return math.NaN(), err
	}
	return s.executions() * s.SF / cpuSeconds, nil
}

// ERAM is the RAM efficiency of Erdelt and Rabl 2026 (section 5.2.1, eq. 6):
//
//	E_RAM = Throughput@Size × T_s / (3600 × max. RAM) = n × S × 22 × SF / max. RAM
//
// peakRAMGB is the peak RAM usage of the system under test during the
// workload, in GB (the paper: "queries completed per GB of RAM - peak
// usage"). tenantbench passes mem_peak_mb / 1024 (GB of 1024 MB, as
// Oracle (2014) counts them). The result is in SF-weighted queries per GB.
func ERAM(s Streams, peakRAMGB float64) (float64, error) {
	if err := s.validate(); err != nil {
		return math.NaN(), err
	}
	if err := positive("peak RAM", peakRAMGB); err != nil {
		return math.NaN(), err
	}
	return s.executions() * s.SF / peakRAMGB, nil
}
