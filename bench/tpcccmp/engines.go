package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

// side is what the benchmark does differently on an engine: the server's
// settings, go-tpc's driver flags, tenantbench's interaction mode when
// -interaction is not given, and the untimed flush between loads.
type side struct {
	settings    map[string]string
	interaction string
	// gotpc are go-tpc's flags of its driver and the tenant's password.
	gotpc func(p tenancy.Placement) []string
	// flush writes the server's dirty pages out, so that every load
	// starts with clean buffers.
	flush func(ctx context.Context, inst *provider.Instance) error
	// statements counts what each tool executed (-statements); nil
	// where the benchmark has no counter for the engine.
	statements *counter
	// analyze refreshes the planner's statistics of go-tpc's database
	// after its load, untimed, as tenantbench's post-ingest does for its
	// own: go-tpc's prepare analyzes nothing, and before autovacuum (or
	// InnoDB's automatic recalculation) gets to it the planner's choices
	// over its freshly loaded tables differ from those over
	// tenantbench's ("" none).
	analyze string
}

// sides, by engine name. PostgreSQL's password goes through a pgpass file
// (runGotpc); go-tpc's MySQL driver has no such file, so it takes a flag.
var sides = map[string]side{
	postgres.Name: {settings: map[string]string{"shared_buffers": "1GB", "max_wal_size": "4GB"},
		interaction: tpcc.InteractionBatched,
		gotpc: func(tenancy.Placement) []string {
			return []string{"-d", "postgres", "--conn-params", "sslmode=disable"}
		},
		flush: func(ctx context.Context, inst *provider.Instance) error {
			return adminExec(ctx, inst, "postgres", "CHECKPOINT")
		},
		statements: pgStatStatements,
		analyze:    "ANALYZE"},
	// MariaDB has no batched form of tpcc; its statements are what go-tpc
	// sends too.
	mariadb.Name: {settings: map[string]string{"innodb_buffer_pool_size": "1G", "innodb_log_file_size": "1G"},
		interaction: tpcc.InteractionStatements,
		gotpc: func(p tenancy.Placement) []string {
			return []string{"-d", "mysql", "-p", p.Password}
		},
		flush:   flushInnoDB,
		analyze: "ANALYZE TABLE warehouse, district, customer, history, new_order, orders, order_line, stock, item"},
}

func sideOf(engine string) (side, error) {
	s, ok := sides[engine]
	if !ok {
		return side{}, fmt.Errorf("-engine %s: not measured against go-tpc (engines that are: %s)",
			engine, strings.Join(slices.Sorted(maps.Keys(sides)), ", "))
	}
	return s, nil
}

func adminExec(ctx context.Context, inst *provider.Instance, database, sql string) error {
	c, err := inst.Engine.Connect(ctx, inst.AdminDSN(database))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.Exec(ctx, sql)
}

// flushInnoDB is MariaDB's nearest to a checkpoint: with no dirty pages
// allowed, InnoDB's page cleaner writes them all out; wait until none is
// left (at most two minutes), then allow them again. For the flush the
// cleaner's I/O budget (innodb_io_capacity, 200 pages a second by default,
// and its ceiling innodb_io_capacity_max) is raised as far as it goes, so
// that the pages go at the disk's speed, as CHECKPOINT's do on
// PostgreSQL: at the server's own budget a load of 10 warehouses left
// more than two minutes of writing (the flushes took about 10 of the 12
// minutes of a 3-round load comparison) and the next load began with
// pages still dirty; raised, they are out in about 2 s. The server's
// values come back after.
func flushInnoDB(ctx context.Context, inst *provider.Instance) error {
	c, err := inst.Engine.Connect(ctx, inst.AdminDSN("mysql"))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	was, err := c.QueryStrings(ctx, "SELECT CONCAT_WS(',', @@global.innodb_max_dirty_pages_pct, @@global.innodb_io_capacity, @@global.innodb_io_capacity_max)")
	if err != nil || len(was) != 1 || len(strings.Split(was[0], ",")) != 3 {
		return fmt.Errorf("innodb_max_dirty_pages_pct, innodb_io_capacity, innodb_io_capacity_max: %v %q", err, was)
	}
	old := strings.Split(was[0], ",")
	// The maximum first: innodb_io_capacity may not exceed it; back in the
	// reverse order.
	for _, set := range []string{"innodb_io_capacity_max = 1000000", "innodb_io_capacity = 1000000", "innodb_max_dirty_pages_pct = 0"} {
		if err := c.Exec(ctx, "SET GLOBAL "+set); err != nil {
			return err
		}
	}
	defer func() {
		for _, set := range []string{"innodb_max_dirty_pages_pct = " + old[0], "innodb_io_capacity = " + old[1], "innodb_io_capacity_max = " + old[2]} {
			c.Exec(context.Background(), "SET GLOBAL "+set)
		}
	}()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		v, err := c.QueryStrings(ctx, "SELECT variable_value FROM information_schema.global_status WHERE variable_name = 'INNODB_BUFFER_POOL_PAGES_DIRTY'")
		if err != nil || len(v) != 1 {
			return fmt.Errorf("dirty pages: %v", err)
		}
		if n, _ := strconv.Atoi(v[0]); n == 0 {
			return nil
		}
	}
	fmt.Println("flush: dirty pages left after two minutes")
	return nil // still some after two minutes: the rounds go on, as a busy server's would
}
