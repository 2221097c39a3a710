package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// mIdle is the host's CPU idle over the workload phase (results.csv
// host_cpu_idle_pct), which EDB 2026 reads beside the latency.
var mIdle = declared("host_cpu_idle_pct", extra("host_cpu_idle_pct"))

// noiseTable is EDB 2026's table ("Ryzen Under Pressure", "Full Latency
// Results Breakdown" and its CPU utilisation analysis): for each
// placement of the clients, noise level and client count, the
// throughput, the average, p95 and p99 latency and the host's CPU idle,
// means over each matrix point's successful repetitions. It is there when
// the experiment varies any of the clients, a list-valued interference
// param (the noise's level) or sut.placement; nil otherwise. Any other
// dimension that varies (model, tenants, scale, a setting...) is a
// column of its own in front, so that each row is one matrix point.
func (e *experiment) noiseTable() *table {
	v := e.vary
	// Clients a workload case decides vary only with the case: no
	// dimension of the article's.
	if !(v.clients && v.own("clients")) && !v.placement && len(v.interference) == 0 {
		return nil
	}
	placed := false // a placement name is a column even when there is one
	for _, p := range e.points {
		placed = placed || p.placement != ""
	}
	other := e.otherDimensions()
	var head []string
	if len(other) > 0 {
		head = append(head, "matrix point")
	}
	if placed {
		head = append(head, "placement")
	}
	head = append(head, v.interference...)
	head = append(head, "clients", "n")
	first := len(head) - 2 // clients, then the figures, are numbers
	head = append(head, "throughput (tx/s)", "latency avg (ms)", "latency p95 (ms)", "latency p99 (ms)", "host CPU idle (%)")
	t := newTable("Latency by placement, noise and clients (EDB 2026)", head...)
	t.ID = "noise-table"
	for i := first; i < len(head); i++ {
		t.numbers(i)
	}
	for _, p := range e.sortedForNoise() {
		var cells []string
		if len(other) > 0 {
			cells = append(cells, otherLabel(p, other))
		}
		if placed {
			cells = append(cells, p.placement)
		}
		for _, k := range v.interference {
			cells = append(cells, p.interference[k])
		}
		cells = append(cells, strconv.Itoa(p.clients), strconv.Itoa(len(p.okRuns())))
		for _, m := range []metric{mThroughput, mMeanLat, mP95, mP99, mIdle} {
			cell := ""
			if vs := values(p.runs, m); len(vs) > 0 {
				cell = fmtNum(mean(vs))
			}
			cells = append(cells, cell)
		}
		t.Rows = append(t.Rows, cells)
	}
	t.Note = "EDB 2026's table: each row a matrix point, its figures the means over its n successful repetitions " +
		"(results.csv throughput_tps, latency_mean_ms, latency_p95_ms, latency_p99_ms and host_cpu_idle_pct; " +
		"empty: not measured). p95 and p99 are the worst tenant's. The host's CPU idle is /proc/stat's idle and iowait " +
		"over the workload phase, of the one machine that ran the servers, the driver and the noise: the article " +
		"read it on the client's host (A0) and the database's (A2) apart."
	if len(v.interference) > 0 {
		t.Note += " " + strings.Join(v.interference, ", ") + ": the interference param's value (a cpu noise's load " +
			"in percent of its target's CPUs; 0 runs none, the article's 0 % level)."
	}
	if placed {
		t.Note += " placement: the run's sut.placement (its transport, pooler and network: the plan's table)."
	}
	return t
}

// otherDimensions are the varying dimensions that the noise table does
// not have a column of its own for: the case, the engine, the model, the
// tenants, the scale, storage, cores and settings (but those a case
// decides: its name says them).
func (e *experiment) otherDimensions() []func(*point) string {
	var out []func(*point) string
	v := e.vary
	if v.cases {
		out = append(out, func(p *point) string { return p.kase })
	}
	if v.engine {
		out = append(out, func(p *point) string { return p.engine })
	}
	models, tenants := map[string]bool{}, map[int]bool{}
	for _, p := range e.points {
		models[p.model], tenants[p.tenants] = true, true
	}
	if len(models) > 1 {
		out = append(out, func(p *point) string { return p.model })
	}
	if len(tenants) > 1 {
		out = append(out, func(p *point) string { return tenantsLabel(p.tenants) })
	}
	if v.scale && v.own("scale") {
		out = append(out, func(p *point) string { return "scale " + fmtNum(p.scale) })
	}
	if e.vary.storage || e.vary.volume || e.vary.cpuPolicy {
		out = append(out, func(p *point) string {
			r := p.runs[0].row
			return fmt.Sprintf("%s, %s volume, cpu %s", r.Storage, r.Volume, r.CPUPolicy)
		})
	}
	for _, k := range v.settings {
		if v.own("set_" + k) {
			out = append(out, func(p *point) string { return k + "=" + p.settings[k] })
		}
	}
	return out
}

func otherLabel(p *point, dims []func(*point) string) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = d(p)
	}
	return strings.Join(parts, ", ")
}

// sortedForNoise orders the points as the article's table reads: by
// placement (as the plan lists them), then by noise level (by number,
// when every level is one), then by clients; points alike in those keep
// their order.
func (e *experiment) sortedForNoise() []*point {
	var places []string
	if e.plan != nil {
		places = e.plan.Dimensions.Placements
	}
	for _, p := range e.points {
		places = append(places, p.placement) // those a plan.json does not list (older results), after
	}
	placeRank := rankOf(places, false)
	levelRank := map[string]map[string]int{}
	for _, k := range e.vary.interference {
		var levels []string
		for _, p := range e.points {
			levels = append(levels, p.interference[k])
		}
		levelRank[k] = rankOf(levels, true)
	}
	out := append([]*point(nil), e.points...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if x, y := placeRank[a.placement], placeRank[b.placement]; x != y {
			return x < y
		}
		for _, k := range e.vary.interference {
			if x, y := levelRank[k][a.interference[k]], levelRank[k][b.interference[k]]; x != y {
				return x < y
			}
		}
		return a.clients < b.clients
	})
	return out
}

// rankOf ranks values in the order they first appear, or by number when
// numeric and every value is a number.
func rankOf(values []string, numeric bool) map[string]int {
	var distinct []string
	seen := map[string]bool{}
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			distinct = append(distinct, v)
		}
	}
	if numeric {
		nums := map[string]float64{}
		for _, v := range distinct {
			f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
			if err != nil {
				nums = nil
				break
			}
			nums[v] = f
		}
		if nums != nil {
			sort.SliceStable(distinct, func(i, j int) bool { return nums[distinct[i]] < nums[distinct[j]] })
		}
	}
	rank := make(map[string]int, len(distinct))
	for i, v := range distinct {
		rank[v] = i
	}
	return rank
}
