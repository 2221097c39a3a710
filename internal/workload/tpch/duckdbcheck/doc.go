// Package duckdbcheck compares the answers of the tpch workload's 22
// queries in PostgreSQL and in MariaDB with DuckDB's over the same
// generated data (an independent engine). It is a module of its own, so
// that DuckDB, a cgo library, stays out of tenantbench's build: run it
// with
//
//	cd internal/workload/tpch/duckdbcheck && go test .
package duckdbcheck
