package main

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/bench/internal/benchutil"
	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// target is where a peer's round runs: the tenant's database on the
// server, over transport, with the bench's sizes.
type target struct {
	inst                    *provider.Instance
	p                       tenancy.Placement
	transport               string
	scale, clients, threads int
	d                       time.Duration
	script                  string
}

// peer is the client an engine's tenantbench driver is measured
// against, with the server settings of the benchmark on that engine.
type peer struct {
	name     string
	settings map[string]string
	// scripts are the tpcb scripts the peer has a form of.
	scripts []string
	// prepare makes the peer's own data, untimed; nil when it runs on
	// tpcb's tables.
	prepare func(ctx context.Context, t target) error
	// round is one measured run.
	round func(t target) (benchutil.Pgbench, error)
	// bytesSent reads the bytes the server has sent to its clients, one
	// value; "" where the engine keeps no such count.
	bytesSent string
}

// peers, by engine name: pgbench on PostgreSQL (tpcb's tables are
// pgbench's), sysbench's oltp_point_select on MariaDB.
var peers = map[string]peer{
	postgres.Name: {name: "pgbench", settings: map[string]string{"shared_buffers": "512MB"},
		scripts: []string{"select-only", "simple-update", "tpcb-like"}, round: pgbenchRound},
	mariadb.Name: {name: "sysbench", settings: map[string]string{"innodb_buffer_pool_size": "1G"},
		scripts: []string{"select-only"}, prepare: sysbenchPrepare, round: sysbenchRound,
		// Both clients cache a prepared statement's result metadata
		// (MARIADB_CLIENT_CACHE_METADATA: libmariadb, and
		// go-sql-driver/mysql from v1.10.0), which the server then does
		// not resend; sysbench's row is sbtest1's 120-character c, tpcb's
		// an integer, so its bytes are more.
		bytesSent: "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'BYTES_SENT'"},
}

// peerOf is engine's peer, or an error naming those there are.
func peerOf(engine string) (peer, error) {
	pr, ok := peers[engine]
	if !ok {
		return peer{}, fmt.Errorf("-engine %s: no peer to measure against (engines with one: %s)",
			engine, strings.Join(slices.Sorted(maps.Keys(peers)), ", "))
	}
	return pr, nil
}

// has refuses a script the peer has no form of.
func (pr peer) has(script string) error {
	if !slices.Contains(pr.scripts, script) {
		return fmt.Errorf("-script %s: %s has a form of %s only", script, pr.name, strings.Join(pr.scripts, ", "))
	}
	return nil
}

func pgbenchRound(t target) (benchutil.Pgbench, error) {
	host := t.inst.Host
	if t.transport == "unix" {
		host = t.inst.SocketDir
	}
	flagFor := map[string]string{"select-only": "-S", "simple-update": "-N", "tpcb-like": ""}
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(t.clients), "-j", strconv.Itoa(t.threads),
		"-T", strconv.Itoa(int(t.d.Seconds())), "-h", host, "-p", strconv.Itoa(t.inst.Port), "-U", t.p.Role}
	if f := flagFor[t.script]; f != "" {
		args = append(args, f)
	}
	return benchutil.RunPgbench(append(args, t.p.Database), t.p.Password)
}

// sysbenchArgs are oltp_point_select's flags for t: one table sbtest1 of
// as many rows as tpcb's accounts (100,000 a scale unit), the primary key
// only (as pgbench_accounts), keys drawn uniformly (as tpcb's select-only;
// sysbench's default is skewed).
func sysbenchArgs(t target) []string {
	args := []string{"oltp_point_select", "--db-driver=mysql", "--mysql-user=" + t.p.Role,
		"--mysql-password=" + t.p.Password, "--mysql-db=" + t.p.Database, "--tables=1",
		"--table-size=" + strconv.Itoa(t.scale*100000), "--create_secondary=off", "--rand-type=uniform"}
	if t.transport == "unix" {
		return append(args, "--mysql-socket="+mariadb.SocketPath(t.inst.SocketDir, t.inst.Port))
	}
	return append(args, "--mysql-host="+t.inst.Host, "--mysql-port="+strconv.Itoa(t.inst.Port))
}

// sysbenchPrepare creates and fills sbtest1, then reads it whole so that
// the peer's first round does not pay for the cache.
func sysbenchPrepare(ctx context.Context, t target) error {
	args := append(sysbenchArgs(t), "prepare")
	if out, err := exec.CommandContext(ctx, "sysbench", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("sysbench prepare: %v\n%s", err, out)
	}
	c, err := t.inst.Engine.Connect(ctx, t.p.DSN(t.transport))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.QueryStrings(ctx, "SELECT sum(k) FROM sbtest1")
	return err
}

func sysbenchRound(t target) (benchutil.Pgbench, error) {
	return benchutil.RunSysbench(append(sysbenchArgs(t), "--threads="+strconv.Itoa(t.clients),
		"--time="+strconv.Itoa(int(t.d.Seconds())), "--report-interval=0", "run"))
}
