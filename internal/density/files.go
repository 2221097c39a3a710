package density

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Model is one model's search: its name and result.
type Model struct {
	Name   string
	Result *Result
}

// DensityHeader is the header of density.csv.
var DensityHeader = []string{"model", "tenants_found", "exact", "stopped", "throughput_tps", "latency_mean_ms",
	"latency_p95_ms", "cpu_pct", "mem_mb", "mem_pct", "iops", "probes", "probe_list", "cpu_limit_pct", "mem_limit_pct"}

// ProbesHeader is the header of probes.csv.
var ProbesHeader = []string{"model", "tenants", "ok", "sla_met", "cpu_pct", "mem_pct", "mem_mb", "iops",
	"throughput_tps", "latency_mean_ms", "latency_p95_ms", "elapsed_s", "fits", "why", "results"}

// WriteDensity writes density.csv: a row per model with the most tenants
// found and its probe's figures (empty when none fit), how many probes
// it took, each as "tenants:verdict" in the order run, and the ceilings
// searched under (so that a reader of the file alone knows them).
func WriteDensity(w io.Writer, models []Model, l Limits) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(DensityHeader)
	for _, m := range models {
		r := m.Result
		var list []string
		for _, p := range r.Probes {
			v := "fits"
			if why := p.Why(l); why != "" {
				v = why
			}
			list = append(list, fmt.Sprintf("%d:%s", p.Tenants, v))
		}
		row := []string{m.Name, strconv.Itoa(r.Found), strconv.FormatBool(r.Exact), r.Stopped, "", "", "", "", "", "", "",
			strconv.Itoa(len(r.Probes)), strings.Join(list, ";"), num(l.CPUPct), num(l.MemPct)}
		if b := r.Best; b != nil {
			copy(row[4:], []string{num(b.TPS), num(b.MeanMs), num(b.P95Ms), num(b.CPUPct), num(b.MemMB), num(b.MemPct), opt(b.IOPS)})
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteProbes writes probes.csv: every probe of every model, in the
// order run, whether it fit and why not, and where its results are.
func WriteProbes(w io.Writer, models []Model, l Limits) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(ProbesHeader)
	for _, m := range models {
		for _, p := range m.Result.Probes {
			why := p.Why(l)
			_ = cw.Write([]string{m.Name, strconv.Itoa(p.Tenants), strconv.FormatBool(p.OK), strconv.FormatBool(p.SLAMet),
				opt(p.CPUPct), opt(p.MemPct), opt(p.MemMB), opt(p.IOPS), num(p.TPS), num(p.MeanMs), num(p.P95Ms),
				num(p.Elapsed.Seconds()), strconv.FormatBool(why == ""), why, p.Where})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTable writes the result as Oracle 2014 Table 12 lays it out: per
// model the tenants found, throughput, latency, CPU, memory and IOPS, in
// Markdown.
func WriteTable(w io.Writer, models []Model, l Limits) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| model | tenants | throughput (tps) | mean latency (ms) | p95 (ms) | CPU (%%) | memory (MiB) | memory (%%) | IOPS | probes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range models {
		r := m.Result
		found := strconv.Itoa(r.Found)
		if !r.Exact {
			found = "at least " + found + " (" + r.Stopped + ")"
		}
		cells := []string{"–", "–", "–", "–", "–", "–", "–"}
		if p := r.Best; p != nil {
			cells = []string{num(p.TPS), num(p.MeanMs), num(p.P95Ms), num(p.CPUPct), num(p.MemMB), num(p.MemPct), opt(p.IOPS)}
			if cells[6] == "" {
				cells[6] = "–"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", m.Name, found, strings.Join(cells, " | "), len(r.Probes))
	}
	fmt.Fprintf(&b, "\nThe most tenants at which every tenant met its SLA with the servers' CPU at most %g %% and their memory at most %g %% "+
		"of the machine's (Oracle 2014, Test 3, Table 12). Each probe is a run of its own, in probes.csv.\n", l.CPUPct, l.MemPct)
	_, err := io.WriteString(w, b.String())
	return err
}

func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}

// opt is a figure that may be unmeasured (negative): empty then.
func opt(f float64) string {
	if f < 0 {
		return ""
	}
	return num(f)
}
