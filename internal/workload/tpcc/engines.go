package tpcc

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// RunsOn: tpcc has a PostgreSQL form and a MariaDB form (mariadb*.go),
// the latter in interactions statements and procedures only (see
// CheckEngine).
func (w *Workload) RunsOn(e engine.Engine) bool {
	switch e.(type) {
	case postgres.Engine, mariadb.Engine:
		return true
	}
	return false
}

var _ workload.EngineOptions = (*Workload)(nil)

// CheckEngine refuses on MariaDB an interaction without a MariaDB form
// (mariaForms): batched sends arrays, unnest and data-modifying CTEs,
// which MariaDB does not have. It is not
// mapped to statements behind the spec's back: the interaction decides
// the round trips a run measures.
func (w *Workload) CheckEngine(e engine.Engine) (key, value, allowed string) {
	if _, ok := e.(mariadb.Engine); !ok {
		return "", "", ""
	}
	if _, ok := mariaForms[w.opts.Interaction]; !ok {
		return "interaction", w.opts.Interaction, fmt.Sprintf(
			"has no MariaDB form (it batches with PostgreSQL's arrays and CTEs); with %s (sut.engine) set workload.options.interaction to %s or %s",
			e.Name(), InteractionStatements, InteractionProcedures)
	}
	return "", "", ""
}
