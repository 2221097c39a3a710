package main

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// counter counts, where an engine has one loaded, the statements a
// database's sessions executed and their time in the server, so that the
// cpu rounds can say what each tool sent per New-Order and how long its
// statements took there, waits on locks included (-statements).
type counter struct {
	// settings load it at the server's start.
	settings map[string]string
	// db is the database its view is created in; create, reset and read
	// run there (read takes the tool's database name as $1 and returns
	// "calls milliseconds").
	db, create, reset, read string
	// top lists the database's ($1) statements that took the most time,
	// one line each: "calls milliseconds text".
	top string
}

// pgStatStatements is PostgreSQL's (the pg_stat_statements module).
var pgStatStatements = &counter{
	settings: map[string]string{"shared_preload_libraries": "pg_stat_statements"},
	db:       "postgres",
	create:   "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
	reset:    "SELECT pg_stat_statements_reset()",
	read: `SELECT coalesce(sum(s.calls), 0) || ' ' || coalesce(round(sum(s.total_exec_time)::numeric, 3), 0)
FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
	top: `SELECT s.calls || ' ' || round(s.total_exec_time::numeric, 3) || ' ' || left(regexp_replace(s.query, '\s+', ' ', 'g'), 70)
FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1
ORDER BY s.total_exec_time DESC LIMIT 6`,
}

// withCounter is the server's settings with the counter's.
func withCounter(settings map[string]string, c *counter) map[string]string {
	out := maps.Clone(settings)
	maps.Copy(out, c.settings)
	return out
}

// statementsOf reads database's statements and their milliseconds in the
// server since the last reset.
func (c *counter) statementsOf(ctx context.Context, inst *provider.Instance, database string) (calls, ms float64, err error) {
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(c.db))
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	v, err := conn.QueryStrings(ctx, c.read, database)
	if err != nil || len(v) != 1 {
		return 0, 0, fmt.Errorf("statements of %s: %v %v", database, v, err)
	}
	f := strings.Fields(v[0])
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("statements of %s: %q", database, v[0])
	}
	if calls, err = strconv.ParseFloat(f[0], 64); err == nil {
		ms, err = strconv.ParseFloat(f[1], 64)
	}
	return calls, ms, err
}

// topOf is database's statements that took the most time in the server,
// per New-Order of n: a line each.
func (c *counter) topOf(ctx context.Context, inst *provider.Instance, database string, n float64) ([]string, error) {
	conn, err := inst.Engine.Connect(ctx, inst.AdminDSN(c.db))
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.QueryStrings(ctx, c.top, database)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		f := strings.SplitN(r, " ", 3)
		if len(f) != 3 {
			continue
		}
		calls, _ := strconv.ParseFloat(f[0], 64)
		ms, _ := strconv.ParseFloat(f[1], 64)
		mean := 0.0
		if calls > 0 {
			mean = ms / calls
		}
		out = append(out, fmt.Sprintf("%6.3f ms and %5.2f calls per New-Order, %.3f ms each: %s", ms/n, calls/n, mean, f[2]))
	}
	return out, nil
}
