package results

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Dir is an experiment's results directory.
type Dir struct {
	Path        string
	settingKeys []string // matrix settings, one results.csv column each
	// interferenceKeys are the list-valued interference params, one
	// results.csv column each (SetInterferenceKeys).
	interferenceKeys []string
}

// SetInterferenceKeys gives results.csv a column for each list-valued
// interference param of the plan, after the settings'.
func (d *Dir) SetInterferenceKeys(keys []string) { d.interferenceKeys = keys }

// Create makes the results directory. It must not exist yet or be empty,
// so that results of two experiments never mix.
func Create(path string, settingKeys []string) (*Dir, error) {
	entries, err := os.ReadDir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case len(entries) > 0:
		return nil, fmt.Errorf("results directory %s is not empty: choose another with --out", path)
	}
	return &Dir{Path: path, settingKeys: settingKeys}, nil
}

// Open opens an existing results directory for reading.
func Open(path string) (*Dir, error) {
	if _, err := os.Stat(filepath.Join(path, "spec.yaml")); err != nil {
		return nil, fmt.Errorf("%s is not a tenantbench results directory (no spec.yaml): %w", path, err)
	}
	return &Dir{Path: path}, nil
}

// WriteFile writes name atomically (a reader never sees half a file).
func (d *Dir) WriteFile(name string, data []byte, perm os.FileMode) error {
	full := filepath.Join(d.Path, name)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	tmp := full + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	return os.Rename(tmp, full)
}

// WriteJSON writes v as indented JSON.
func (d *Dir) WriteJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return d.WriteFile(name, append(b, '\n'), 0o644)
}

// writeCSV writes a header and rows atomically.
func (d *Dir) writeCSV(name string, header []string, rows [][]string) error {
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	_ = w.Write(header)
	_ = w.WriteAll(rows) // writes to memory; WriteAll flushes
	if err := w.Error(); err != nil {
		return err
	}
	return d.WriteFile(name, []byte(sb.String()), 0o644)
}

// ResultsHeader is the header of results.csv: the declared columns
// (columns.go), the swept settings' after the matrix point's.
func (d *Dir) ResultsHeader() []string {
	var h []string
	for _, c := range resultColumns {
		h = append(h, c.Name)
		if c.Name == "repetition" {
			for _, k := range d.settingKeys {
				h = append(h, settingColumn(k).Name)
			}
			for _, k := range d.interferenceKeys {
				h = append(h, interferenceColumn(k).Name)
			}
		}
	}
	return h
}

// AppendResult adds a run's row to results.csv, creating it with its
// header first, and syncs it: the row survives a crash right after.
func (d *Dir) AppendResult(s *Summary) error {
	rep := itoa(s.Repetition)
	if s.Repetition == AggregateRepetition {
		rep = "mean"
	}
	row := []string{s.RunID, s.Model, itoa(s.Tenants), ftoa(s.Scale), itoa(s.Clients), rep}
	for _, k := range d.settingKeys {
		row = append(row, s.Settings[k])
	}
	for _, k := range d.interferenceKeys {
		row = append(row, s.Interference[k])
	}
	a := s.Provider
	// A failed run's figures that were never measured are empty, not 0:
	// a 0 would read as a measured standstill.
	wl, ph := s.workloadMeasured(), s.phaseMeasured
	row = append(row, s.Status, ifMeasured(wl, ftoa(a.TPS)), ifMeasured(wl, ftoa(a.MeanMs)),
		ifMeasured(wl, ftoa(a.P95Ms)), ifMeasured(wl, ftoa(a.P99Ms)),
		ifMeasured(wl, strconv.FormatInt(a.Committed, 10)), ifMeasured(wl, strconv.FormatInt(a.Failed, 10)),
		ifMeasured(ph("provision"), ftoa(a.ProvisionS)), ifMeasured(ph("setup"), ftoa(a.SetupS)),
		ifMeasured(ph("ingest"), ftoa(a.IngestS)), ifMeasured(ph("post-ingest"), ftoa(a.PostIngest)),
		ifMeasured(ph("workload"), ftoa(a.WorkloadS)),
		ifMeasured(wl, ftoa(a.TPM)), optional(a.NOPM), ifMeasured(wl, ftoa(a.FairnessJain)), optional(a.CPUS), optional(a.MemPeakMB),
		optional(a.ETpX), optional(a.ELat),
		optional(a.MemFootprintMB), optional(a.MemMarginalMB), usd(a.RUC), optional(a.PScore), optional(a.TScore),
		optional(a.E1Score), optional(a.E2Score),
		optional(a.PowerAtSize), optional(a.ThroughputAtSize), optional(a.ECPU), optional(a.ERAM),
		optional(s.HostSpeed), optional(a.FScoreS), optional(a.RScoreS), optional(a.HostIdlePct),
		optional(a.CPUBackgroundPct), optional(a.CPUForegroundPct), optional(a.CPUServersPct), optional(a.MemTenantPrivateMB))
	row = append(append(row, slaCells(&a)...), optional(a.DriverCPUPer1000), optional(a.DriverCPUShare), s.Interaction,
		s.Storage, s.Volume, s.CPUPolicy, s.Placement, itoa(s.Replicas), optional(a.LagInsertMs), optional(a.LagUpdateMs),
		optional(a.LagDeleteMs), optional(a.CScoreMs), s.Engine, s.Case, s.Error)
	return d.appendCSV(filepath.Join(d.Path, "results.csv"), d.ResultsHeader(), [][]string{row})
}

// WritePhases writes runs/<id>/phases.csv.
func (d *Dir) WritePhases(id string, phases []Phase) error {
	rows := make([][]string, 0, len(phases))
	for _, p := range phases {
		rows = append(rows, []string{p.Tenant, p.Phase, ftoa(p.Start), ftoa(p.End), ftoa(p.Seconds()), p.Status, p.Error})
	}
	return d.writeCSV(filepath.Join("runs", id, "phases.csv"),
		[]string{"tenant", "phase", "start_s", "end_s", "duration_s", "status", "error"}, rows)
}

// classes formats failures by class as "40:3;connection:1", sorted.
func classes(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + strconv.FormatInt(m[k], 10)
	}
	return strings.Join(parts, ";")
}

// optional writes an absent figure as an empty cell.
func optional(f *float64) string {
	if f == nil {
		return ""
	}
	return ftoa(*f)
}

// usd writes dollars to 1/1000000: a run's cost per minute is a fraction
// of a cent (Zhang et al. 2025, Table V prints four decimals).
func usd(f *float64) string {
	if f == nil {
		return ""
	}
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(*f, 'f', 6, 64), "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

// ftoa writes a float with at most 3 decimals and no exponent.
func ftoa(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}

// appendCSV appends rows to the CSV file at path, with header first when
// the file is new, and syncs it.
func (d *Dir) appendCSV(path string, header []string, rows [][]string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if errors.Is(statErr, fs.ErrNotExist) {
		_ = w.Write(header)
	}
	_ = w.WriteAll(rows) // flushes
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
