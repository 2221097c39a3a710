package results

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The readers below turn the files docs/results.md describes back into
// values, for the report and compare (which read results, never a
// database). Columns are found by name, not position, so that a column
// added later (a metric, a monitor figure) breaks no reader, and a reader
// sees the columns it does not know in Extra.

// Table is a CSV file read whole: its header and its rows.
type Table struct {
	Path   string
	Header []string
	Rows   [][]string
	index  map[string]int
}

// ReadTable reads a CSV file with a header line. A file that does not
// exist gives an error wrapping fs.ErrNotExist, so callers can tell "not
// measured" from "broken".
func ReadTable(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file, no header", path)
	}
	t := &Table{Path: path, Header: recs[0], Rows: recs[1:], index: map[string]int{}}
	for i, h := range t.Header {
		t.index[h] = i
	}
	return t, nil
}

// Has says whether the table has the column.
func (t *Table) Has(col string) bool { _, ok := t.index[col]; return ok }

// Get is row i's value of col, "" when the column is absent.
func (t *Table) Get(i int, col string) string {
	j, ok := t.index[col]
	if !ok || j >= len(t.Rows[i]) {
		return ""
	}
	return t.Rows[i][j]
}

// Float is row i's value of col as a number. An empty cell is 0 and no
// error: the writers leave a cell empty for "none".
func (t *Table) Float(i int, col string) (float64, error) {
	s := t.Get(i, col)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s line %d column %s: %q is not a number", t.Path, i+2, col, s)
	}
	return v, nil
}

// Int is row i's value of col as a whole number (empty is 0).
func (t *Table) Int(i int, col string) (int64, error) {
	s := t.Get(i, col)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s line %d column %s: %q is not a whole number", t.Path, i+2, col, s)
	}
	return v, nil
}

// rowReader collects the first parse error of a row, so that a reader
// reads every column in a line and checks once.
type rowReader struct {
	t   *Table
	i   int
	err error
}

func (r *rowReader) f(col string) float64 {
	v, err := r.t.Float(r.i, col)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *rowReader) n(col string) int64 {
	v, err := r.t.Int(r.i, col)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *rowReader) s(col string) string { return r.t.Get(r.i, col) }

// ResultRow is one row of results.csv: the provider perspective of a run.
type ResultRow struct {
	RunID      string
	Model      string
	Tenants    int
	Scale      float64
	Clients    int
	Repetition int
	// Settings holds the set_<key> columns (the list-valued settings).
	Settings map[string]string
	// Interference holds the columns of the list-valued interference
	// params, by key ("interference[0].load").
	Interference map[string]string
	// Interaction is the workload's interaction mode, "" for none.
	Interaction string
	// Storage, Volume and CPUPolicy are the run's storage and CPU
	// placement, "" in results older than them.
	Storage, Volume, CPUPolicy string
	// Placement is the name of the run's sut.placement, "" without it or
	// in results older than it.
	Placement string
	// Engine and Case are the run's engine and case, "" in results older
	// than them (and Case for a plan without cases).
	Engine, Case string
	Status       string
	TPS          float64
	MeanMs       float64
	P95Ms        float64
	P99Ms        float64
	Committed    int64
	Failed       int64
	ProvisionS   float64
	SetupS       float64
	IngestS      float64
	PostIngestS  float64
	WorkloadS    float64
	Error        string
	// Extra holds every other column that parses as a number (the monitor's
	// cpu_s, mem_peak_mb, e_tpx, ...), by column name; an empty cell is
	// left out, so a missing value is never read as 0.
	Extra map[string]float64
}

// rowFields are the columns ResultRow has a field for.
var rowFields = map[string]bool{"run_id": true, "model": true, "tenants": true, "scale": true, "clients": true,
	"repetition": true, "status": true, "throughput_tps": true, "latency_mean_ms": true, "latency_p95_ms": true,
	"latency_p99_ms": true, "committed": true, "failed": true, "provision_s": true, "setup_s": true, "ingest_s": true,
	"post_ingest_s": true, "workload_s": true, "interaction": true, "engine": true, "case": true, "error": true, "placement": true}

// ReadResults reads results.csv: one row per run, in plan order. Rows whose
// repetition is not a positive whole number are left out: they are not
// runs but aggregates over a matrix point's repetitions,
// which a reader recomputes from the runs.
func (d *Dir) ReadResults() ([]ResultRow, error) {
	t, err := ReadTable(filepath.Join(d.Path, "results.csv"))
	if err != nil {
		return nil, err
	}
	for _, c := range []string{"run_id", "model", "tenants", "status", "throughput_tps"} {
		if !t.Has(c) {
			return nil, fmt.Errorf("%s: no column %s", t.Path, c)
		}
	}
	var rows []ResultRow
	for i := range t.Rows {
		rep, err := strconv.Atoi(t.Get(i, "repetition"))
		if err != nil || rep < 1 {
			continue
		}
		r := &rowReader{t: t, i: i}
		row := ResultRow{RunID: r.s("run_id"), Model: r.s("model"), Tenants: int(r.n("tenants")), Scale: r.f("scale"),
			Clients: int(r.n("clients")), Repetition: rep, Status: r.s("status"), TPS: r.f("throughput_tps"),
			MeanMs: r.f("latency_mean_ms"), P95Ms: r.f("latency_p95_ms"), P99Ms: r.f("latency_p99_ms"),
			Committed: r.n("committed"), Failed: r.n("failed"), ProvisionS: r.f("provision_s"), SetupS: r.f("setup_s"),
			IngestS: r.f("ingest_s"), PostIngestS: r.f("post_ingest_s"), WorkloadS: r.f("workload_s"), Error: r.s("error"),
			Interaction: r.s("interaction"), Storage: r.s("storage"), Volume: r.s("volume"), CPUPolicy: r.s("cpu_policy"),
			Placement: r.s("placement"), Engine: r.s("engine"), Case: r.s("case"),
			Settings: map[string]string{}, Interference: map[string]string{}, Extra: map[string]float64{}}
		if r.err != nil {
			return nil, r.err
		}
		for _, h := range t.Header {
			switch {
			case strings.HasPrefix(h, "set_"):
				row.Settings[strings.TrimPrefix(h, "set_")] = t.Get(i, h)
			case IsInterferenceColumn(h):
				row.Interference[h] = t.Get(i, h)
			case rowFields[h] || t.Get(i, h) == "":
			default:
				if v, err := strconv.ParseFloat(t.Get(i, h), 64); err == nil {
					row.Extra[h] = v
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ReadSummary reads runs/<id>/summary.json.
func (d *Dir) ReadSummary(id string) (*Summary, error) {
	b, err := os.ReadFile(d.RunFile(id, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", d.RunFile(id, "summary.json"), err)
	}
	return &s, nil
}

// RunFile is the path of a file of run id (runs/<id>/<name>).
func (d *Dir) RunFile(id, name string) string { return filepath.Join(d.Path, "runs", id, name) }

// HasRunFile says whether run id has the file: files a later tenantbench
// writes (the monitor's) are absent from older results.
func (d *Dir) HasRunFile(id, name string) bool {
	_, err := os.Stat(d.RunFile(id, name))
	return err == nil
}

// TenantRow is one row of runs/<id>/tenants.csv.
type TenantRow struct {
	Tenant        string
	Txn           string // a transaction type, or "all"
	Committed     int64
	Failed        int64
	FailedByClass string
	Rollbacks     int64
	Retries       int64
	TPS           float64
	MeanMs        float64
	P50Ms         float64
	P95Ms         float64
	P99Ms         float64
	MaxMs         float64
	// Class is the tenant's class, SLAMet "true" or "false" on its "all"
	// row when it has an SLA; "" otherwise and in older results.
	Class  string
	SLAMet string
}

// ReadTenants reads runs/<id>/tenants.csv.
func (d *Dir) ReadTenants(id string) ([]TenantRow, error) {
	t, err := ReadTable(d.RunFile(id, "tenants.csv"))
	if err != nil {
		return nil, err
	}
	rows := make([]TenantRow, 0, len(t.Rows))
	for i := range t.Rows {
		r := &rowReader{t: t, i: i}
		rows = append(rows, TenantRow{Tenant: r.s("tenant"), Txn: r.s("txn"), Committed: r.n("committed"),
			Failed: r.n("failed"), FailedByClass: r.s("failed_by_class"), Rollbacks: r.n("rollbacks"),
			Retries: r.n("retries"), TPS: r.f("throughput_tps"), MeanMs: r.f("latency_mean_ms"),
			P50Ms: r.f("latency_p50_ms"), P95Ms: r.f("latency_p95_ms"), P99Ms: r.f("latency_p99_ms"),
			MaxMs: r.f("latency_max_ms"), Class: r.s("class"), SLAMet: r.s("sla_met")})
		if r.err != nil {
			return nil, r.err
		}
	}
	return rows, nil
}

// SeriesRow is one row of runs/<id>/timeseries.csv.
type SeriesRow struct {
	Second    int64
	Tenant    string
	Txn       string
	Warmup    bool
	Committed int64
	Failed    int64
	MeanMs    float64
	P99Ms     float64
}

// ReadSeries reads runs/<id>/timeseries.csv.
func (d *Dir) ReadSeries(id string) ([]SeriesRow, error) {
	t, err := ReadTable(d.RunFile(id, "timeseries.csv"))
	if err != nil {
		return nil, err
	}
	rows := make([]SeriesRow, 0, len(t.Rows))
	for i := range t.Rows {
		r := &rowReader{t: t, i: i}
		rows = append(rows, SeriesRow{Second: r.n("second"), Tenant: r.s("tenant"), Txn: r.s("txn"),
			Warmup: r.s("warmup") == "true", Committed: r.n("committed"), Failed: r.n("failed"),
			MeanMs: r.f("latency_mean_ms"), P99Ms: r.f("latency_p99_ms")})
		if r.err != nil {
			return nil, r.err
		}
	}
	return rows, nil
}

// ReadPhases reads runs/<id>/phases.csv.
func (d *Dir) ReadPhases(id string) ([]Phase, error) {
	t, err := ReadTable(d.RunFile(id, "phases.csv"))
	if err != nil {
		return nil, err
	}
	rows := make([]Phase, 0, len(t.Rows))
	for i := range t.Rows {
		r := &rowReader{t: t, i: i}
		rows = append(rows, Phase{Tenant: r.s("tenant"), Phase: r.s("phase"), Start: r.f("start_s"), End: r.f("end_s"),
			Status: r.s("status"), Error: r.s("error")})
		if r.err != nil {
			return nil, r.err
		}
	}
	return rows, nil
}

// ReadEnv reads env.json as a map, so that keys added later show up in a
// report without a change here; nil and no error when the file is absent
// (an experiment cut before its first run ended).
func (d *Dir) ReadEnv() (map[string]any, error) {
	b, err := os.ReadFile(filepath.Join(d.Path, "env.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(d.Path, "env.json"), err)
	}
	return m, nil
}
