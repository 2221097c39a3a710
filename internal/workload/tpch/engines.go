package tpch

import (
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
)

// RunsOn: tpch has a PostgreSQL form only (its SQL, COPY and protocol
// level client are PostgreSQL's).
func (w *Workload) RunsOn(e engine.Engine) bool {
	_, ok := e.(postgres.Engine)
	return ok
}
