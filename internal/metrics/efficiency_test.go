package metrics

import "testing"

func TestETpX(t *testing.T) {
	tests := []struct {
		name            string
		goodput, d, cpu float64
		want            float64
		wantErr         error
	}{
		// Erdelt and Rabl's (2026) TPC-C setting: d = 600 s; 36,000
		// CPU-seconds in ten minutes is its saturation point (section 6).
		// 5000 req/s then gives 5000 × 600 / 36000 = 83.33 requests per
		// CPU-second.
		{"Erdelt and Rabl 2026 saturation", 5000, 600, 36000, 250.0 / 3, nil},
		{"hand", 100, 10, 50, 20, nil},
		{"no goodput", 0, 600, 100, 0, nil},
		{"negative goodput", -1, 600, 100, 0, ErrNegative},
		{"zero duration", 100, 0, 100, 0, ErrNotPositive},
		{"zero cpu", 100, 600, 0, 0, ErrNotPositive},
		{"NaN cpu", 100, 600, nan, 0, ErrNotFinite},
		{"infinite goodput", inf, 600, 100, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ETpX(tc.goodput, tc.d, tc.cpu)
			check(t, got, err, tc.want, 1e-9, tc.wantErr)
		})
	}
}

func TestELat(t *testing.T) {
	tests := []struct {
		name         string
		latency, cpu float64
		want         float64
		wantErr      error
	}{
		{"hand 1", 0.5, 2, 1, nil},
		{"hand 1/2", 0.01, 400, 0.5, nil},
		// 250 ms mean latency at 36000 CPU-seconds: 1/sqrt(9000).
		{"Erdelt and Rabl 2026 scale", 0.25, 36000, 0.010540925533894598, nil},
		{"zero latency", 0, 10, 0, ErrNotPositive},
		{"negative cpu", 0.1, -1, 0, ErrNotPositive},
		{"NaN latency", nan, 10, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ELat(tc.latency, tc.cpu)
			check(t, got, err, tc.want, 1e-12, tc.wantErr)
		})
	}
}

// seed000H is Erdelt and Rabl's (2026) TPC-H setting (section 5.2) with 3
// tenants: 22 queries, each run n = 10 times per stream, SF 10.
var seed000H = Streams{S: 3, Queries: 22, N: 10, SF: 10}

func TestThroughputAtSize(t *testing.T) {
	tests := []struct {
		name    string
		s       Streams
		ts      float64
		want    float64
		wantErr error
	}{
		// 10 × 3 × 22 × 3600 / 7200 × 10 = 3300.
		{"Erdelt and Rabl 2026 setting", seed000H, 7200, 3300, nil},
		// S = 1, n = 1: TPC-H's 22 × 3600 / T_s × SF.
		{"TPC-H single stream", Streams{S: 1, Queries: 22, N: 1, SF: 1}, 3600, 22, nil},
		{"TPC-H SF 100", Streams{S: 1, Queries: 22, N: 1, SF: 100}, 1800, 4400, nil},
		{"zero time", seed000H, 0, 0, ErrNotPositive},
		{"no streams", Streams{S: 0, Queries: 22, N: 10, SF: 10}, 7200, 0, ErrNotPositive},
		{"no queries", Streams{S: 1, Queries: 0, N: 10, SF: 10}, 7200, 0, ErrNotPositive},
		{"n zero", Streams{S: 1, Queries: 22, N: 0, SF: 10}, 7200, 0, ErrNotPositive},
		{"negative SF", Streams{S: 1, Queries: 22, N: 1, SF: -1}, 7200, 0, ErrNotPositive},
		{"zero value", Streams{}, 7200, 0, ErrNotPositive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ThroughputAtSize(tc.s, tc.ts)
			check(t, got, err, tc.want, 1e-9, tc.wantErr)
		})
	}
}

func TestPowerAtSize(t *testing.T) {
	twoSeconds := make([]float64, 220) // n × 22 executions of 2 s each
	for i := range twoSeconds {
		twoSeconds[i] = 2
	}
	tests := []struct {
		name    string
		sf      float64
		times   []float64
		want    float64
		wantErr error
	}{
		// geometric mean of 1, 4, 16 is 4: 10 × 3600 / 4.
		{"hand", 10, []float64{1, 4, 16}, 9000, nil},
		{"220 executions of 2 s", 10, twoSeconds, 18000, nil},
		{"one query", 1, []float64{3600}, 1, nil},
		{"empty", 10, nil, 0, ErrEmpty},
		{"zero time", 10, []float64{1, 0}, 0, ErrNotPositive},
		{"negative time", 10, []float64{-1}, 0, ErrNotPositive},
		{"zero SF", 0, []float64{1}, 0, ErrNotPositive},
		{"NaN time", 1, []float64{nan}, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PowerAtSize(tc.sf, tc.times)
			check(t, got, err, tc.want, 1e-9, tc.wantErr)
		})
	}
}

func TestPowerAtSizeStreams(t *testing.T) {
	tests := []struct {
		name    string
		sf      float64
		streams [][]float64
		want    float64
		wantErr error
	}{
		// Per-stream geometric means 2 and 8, their geometric mean 4; with
		// equal stream lengths this is also the geometric mean of all four
		// times (256^(1/4) = 4), as Erdelt and Rabl (2026) note.
		{"equal streams", 1, [][]float64{{1, 4}, {16, 4}}, 900, nil},
		// Unequal streams: eq. 4 gives geometric means 4 and 1, so 2, and
		// 3600 / 2 = 1800 (pooling all five times would give 64^(1/5)).
		{"unequal streams follow eq. 4", 1, [][]float64{{1, 4, 16}, {1, 1}}, 1800, nil},
		{"one stream is PowerAtSize", 10, [][]float64{{1, 4, 16}}, 9000, nil},
		{"no streams", 1, nil, 0, ErrEmpty},
		{"an empty stream", 1, [][]float64{{1}, {}}, 0, ErrEmpty},
		{"a zero time", 1, [][]float64{{1}, {0}}, 0, ErrNotPositive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PowerAtSizeStreams(tc.sf, tc.streams)
			check(t, got, err, tc.want, 1e-9, tc.wantErr)
		})
	}
}

func TestECPUAndERAM(t *testing.T) {
	tests := []struct {
		name     string
		s        Streams
		resource float64 // CPU-seconds for E_CPU, GB for E_RAM
		wantCPU  float64
		wantRAM  float64
		wantErr  error
	}{
		// n × S × 22 × SF = 10 × 3 × 22 × 10 = 6600 SF-weighted queries.
		{"Erdelt and Rabl 2026 setting", seed000H, 6600, 1, 1, nil},
		{"hand", seed000H, 33, 200, 200, nil},
		{"zero resource", seed000H, 0, 0, 0, ErrNotPositive},
		{"NaN resource", seed000H, nan, 0, 0, ErrNotFinite},
		{"bad streams", Streams{S: 1}, 10, 0, 0, ErrNotPositive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ECPU(tc.s, tc.resource)
			check(t, got, err, tc.wantCPU, 1e-9, tc.wantErr)
			got, err = ERAM(tc.s, tc.resource)
			check(t, got, err, tc.wantRAM, 1e-9, tc.wantErr)
		})
	}
}

// TestECPUBothForms checks the two sides of eq. 5 (and so eq. 6) agree:
// Throughput@Size × T_s / (3600 × CPUs) = n × S × 22 × SF / CPUs, whatever
// T_s is.
func TestECPUBothForms(t *testing.T) {
	for _, ts := range []float64{1, 600, 7200, 12345.6} {
		tp, err := ThroughputAtSize(seed000H, ts)
		if err != nil {
			t.Fatal(err)
		}
		const cpu = 4321.0
		got, err := ECPU(seed000H, cpu)
		check(t, got, err, tp*ts/(3600*cpu), 1e-9, nil)
	}
}
