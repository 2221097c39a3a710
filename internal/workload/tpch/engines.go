package tpch

import (
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
)

// RunsOn: tpch has a PostgreSQL form and a MariaDB form (mariadb*.go).
func (w *Workload) RunsOn(e engine.Engine) bool {
	switch e.(type) {
	case postgres.Engine, mariadb.Engine:
		return true
	}
	return false
}
