// Package tpcb is pgbench's TPC-B-like workload: the four pgbench_* tables
// with pgbench's scale rules, loaded with COPY, and pgbench's three built-in
// scripts (tpcb-like, simple-update, select-only) picked by weight and run as
// "pgbench -M prepared" runs them. It follows pgbench of PostgreSQL 15.
package tpcb

import (
	"fmt"
	"maps"
	"math"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Name is the workload's name in a spec (workload.name).
const Name = "tpcb"

// pgbench's scale rules: nbranches, ntellers and naccounts rows per unit of
// scale (pgbench.c), and SCALE_32BIT_THRESHOLD, the scale from which the
// account ids are bigint.
const (
	branchesPerScale    = 1
	tellersPerScale     = 10
	accountsPerScale    = 100000
	scale32BitThreshold = 20000
	// maxScale keeps tid (an int column, 10 per scale) within int4.
	maxScale = math.MaxInt32 / tellersPerScale
)

// Factory registers tpcb in a workload.Registry.
func Factory() workload.Factory {
	return workload.Factory{Name: Name, Parse: Parse, New: New, Scale: CheckScale}
}

// CheckScale says what a scale must be, or "" when scale is fine: pgbench's
// scale (-s) is a whole number, so a fractional scale is refused rather than
// silently rounded; above 214748364 teller ids would overflow int.
func CheckScale(scale float64) string {
	if math.IsNaN(scale) || scale != math.Trunc(scale) || scale < 1 || scale > maxScale {
		return fmt.Sprintf("must be a whole number from 1 to %d for tpcb (pgbench -s)", maxScale)
	}
	return ""
}

// Workload is one tenant's tpcb at one scale.
type Workload struct {
	scale int64
	opts  Options
	// kinds are the scripts of weight > 0 in the order of scriptNames;
	// weights are theirs. Client.Pick indexes both.
	kinds   []script
	weights []int64
}

var _ workload.Workload = (*Workload)(nil)

// New makes the workload at scale, which CheckScale must accept. opts is
// what Parse returned; nil, or zero fields of Options, mean the defaults.
func New(scale float64, opts any) (workload.Workload, error) {
	if allowed := CheckScale(scale); allowed != "" {
		return nil, fmt.Errorf("tpcb: scale %v: %s", scale, allowed)
	}
	o, err := workload.OptionsAs("tpcb", opts, DefaultOptions())
	if err != nil {
		return nil, err
	}
	if len(o.Scripts) == 0 {
		o.Scripts = DefaultOptions().Scripts
	}
	o.Scripts = maps.Clone(o.Scripts)
	if o.Fillfactor == 0 {
		o.Fillfactor = DefaultOptions().Fillfactor
	}
	if o.Fillfactor < minFillfactor || o.Fillfactor > maxFillfactor {
		return nil, fmt.Errorf("tpcb: fillfactor %d: must be from %d to %d", o.Fillfactor, minFillfactor, maxFillfactor)
	}
	w := &Workload{scale: int64(scale), opts: o}
	for _, k := range allScripts() {
		weight := o.Scripts[k.String()]
		if weight < 0 {
			return nil, fmt.Errorf("tpcb: script %s: weight %d is negative", k, weight)
		}
		if weight > 0 {
			w.kinds = append(w.kinds, k)
			w.weights = append(w.weights, int64(weight))
		}
	}
	for name := range o.Scripts {
		if scriptIndex(name) < 0 {
			return nil, fmt.Errorf("tpcb: unknown script %q", name)
		}
	}
	if len(w.kinds) == 0 {
		return nil, fmt.Errorf("tpcb: no script has a weight above 0")
	}
	return w, nil
}

// RunsOn: tpcb has a PostgreSQL and a MariaDB form (mariadb.go).
func (w *Workload) RunsOn(e engine.Engine) bool {
	switch e.(type) {
	case postgres.Engine, mariadb.Engine:
		return true
	}
	return false
}

// TxnNames are the names of the scripts of weight > 0, in the order
// tpcb-like, simple-update, select-only. They name the transaction types in
// results.
func (w *Workload) TxnNames() []string {
	names := make([]string, len(w.kinds))
	for i, k := range w.kinds {
		names[i] = k.String()
	}
	return names
}

// Rows is the number of rows Ingest loads: per unit of scale, 1 branch,
// 10 tellers and 100000 accounts.
func (w *Workload) Rows() int64 {
	return w.scale * (branchesPerScale + tellersPerScale + accountsPerScale)
}

// bigAccounts says whether aid is bigint, as pgbench decides it.
func (w *Workload) bigAccounts() bool { return w.scale >= scale32BitThreshold }
