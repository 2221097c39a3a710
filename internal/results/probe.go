package results

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"
)

// ProbeFile holds the speed probe's measurements (spec probe), a row each,
// in the order they were taken.
const ProbeFile = "probe.csv"

// ProbeRow is one measurement of the machine's speed.
type ProbeRow struct {
	Time time.Time
	// Round is the round it was taken in; RunID the run it was taken
	// before (the round's first run, when the probe runs every round).
	Round int
	RunID string
	What  string // spec.ProbeCPU or spec.ProbeTPCB
	Value float64
	Unit  string
}

var probeHeader = []string{"time", "round", "run_id", "what", "value", "unit"}

// AppendProbe adds a row to probe.csv, creating it with its header first.
func (d *Dir) AppendProbe(p ProbeRow) error {
	return d.appendCSV(filepath.Join(d.Path, ProbeFile), probeHeader, [][]string{{p.Time.UTC().Format(time.RFC3339Nano),
		itoa(p.Round), p.RunID, p.What, strconv.FormatFloat(p.Value, 'f', 1, 64), p.Unit}})
}

// ReadProbes reads probe.csv; none (and no error) when the experiment had
// no probe.
func (d *Dir) ReadProbes() ([]ProbeRow, error) {
	t, err := ReadTable(filepath.Join(d.Path, ProbeFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]ProbeRow, 0, len(t.Rows))
	for i := range t.Rows {
		at, err := time.Parse(time.RFC3339Nano, t.Get(i, "time"))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: time %q: %w", ProbeFile, i+2, t.Get(i, "time"), err)
		}
		round, err := strconv.Atoi(t.Get(i, "round"))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: round %q is not a whole number", ProbeFile, i+2, t.Get(i, "round"))
		}
		v, err := strconv.ParseFloat(t.Get(i, "value"), 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: value %q is not a number", ProbeFile, i+2, t.Get(i, "value"))
		}
		out = append(out, ProbeRow{Time: at, Round: round, RunID: t.Get(i, "run_id"), What: t.Get(i, "what"),
			Value: v, Unit: t.Get(i, "unit")})
	}
	return out, nil
}
