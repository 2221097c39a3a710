package postgres

import (
	"context"
	"encoding/binary"

	"github.com/jackc/pgx/v5/pgconn"
)

// The blocks PostgreSQL counts per database and per schema
// (server.BlockStats): one query per server a round, whatever the number
// of tenants.

// databaseBlocksQuery reads pg_stat_database's blocks of every database
// (the row of shared objects, whose datname is null, left out).
const databaseBlocksQuery = `SELECT datname::text, blks_read, blks_hit FROM pg_catalog.pg_stat_database WHERE datname IS NOT NULL`

// schemaBlocksQuery sums pg_statio_all_tables by schema: heap, indexes,
// TOAST and TOAST indexes (null where a table has none). The system
// schemas are left out: they are no tenant's.
const schemaBlocksQuery = `SELECT schemaname::text,
  sum(coalesce(heap_blks_read, 0) + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0) + coalesce(tidx_blks_read, 0))::int8,
  sum(coalesce(heap_blks_hit, 0) + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_hit, 0) + coalesce(tidx_blks_hit, 0))::int8
FROM pg_catalog.pg_statio_all_tables
WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
GROUP BY schemaname`

func (s *stats) DatabaseBlocks(ctx context.Context, fn func(name []byte, read, hit int64)) error {
	return s.blocks(ctx, &s.dbBlocks, "tenantbench_monitor_dbblocks", databaseBlocksQuery, fn)
}

func (s *stats) SchemaBlocks(ctx context.Context, fn func(name []byte, read, hit int64)) error {
	return s.blocks(ctx, &s.schemaBlocks, "tenantbench_monitor_schemablocks", schemaBlocksQuery, fn)
}

// blocks runs a prepared query of (name, read, hit) rows, in binary,
// preparing it on first use, as Activity does: a round allocates little.
func (s *stats) blocks(ctx context.Context, sd **pgconn.StatementDescription, name, query string,
	fn func(name []byte, read, hit int64)) error {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	if *sd == nil {
		d, err := s.conn.PgConn().Prepare(ctx, name, query, nil)
		if err != nil {
			return err
		}
		*sd = d
	}
	rr := s.conn.PgConn().ExecStatement(ctx, *sd, nil, nil, binaryResults)
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 3 || len(v[1]) != 8 || len(v[2]) != 8 {
			continue // a sum over no table is null
		}
		fn(v[0], int64(binary.BigEndian.Uint64(v[1])), int64(binary.BigEndian.Uint64(v[2])))
	}
	_, err := rr.Close()
	return err
}
