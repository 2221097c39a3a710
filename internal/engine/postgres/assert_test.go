package postgres_test

import (
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
)

// PostgreSQL has every optional part of an engine.
var (
	_ engine.Engine         = postgres.Engine{}
	_ engine.Admin          = postgres.Engine{}
	_ engine.Pooled         = postgres.Engine{}
	_ engine.Sharer         = postgres.Engine{}
	_ engine.DatabaseCopier = postgres.Engine{}
	_ engine.Statistics     = postgres.Engine{}
)
