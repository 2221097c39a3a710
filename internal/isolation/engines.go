package isolation

import (
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
)

// RunsOn says whether the audit can probe servers of engine e: its probes
// are PostgreSQL's SQL (catalogs, pg_stat_activity, advisory locks,
// pg_terminate_backend) over pgx.
func RunsOn(e engine.Engine) bool {
	_, ok := e.(postgres.Engine)
	return ok
}
