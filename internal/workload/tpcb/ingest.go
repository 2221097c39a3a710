package tpcb

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Ingest loads the rows of pgbench's client-side generation (init step "g",
// initGenerateDataClientSide) in one transaction on one connection: truncate
// the four tables, then COPY ... FREEZE pgbench_branches, pgbench_tellers and
// pgbench_accounts, in that order, and commit. As in pgbench (since 14), the
// truncate in the same transaction allows FREEZE, which writes the rows
// frozen and all-visible, so the VACUUM of PostIngest has little to do.
// Splitting the accounts over several connections rules out FREEZE and was
// no faster in total on 2 cores (see docs/workloads.md).
//
// The data are a pure function of the scale: branch (bid, 0, NULL); teller
// (tid, (tid-1)/10+1, 0, NULL); account (aid, (aid-1)/100000+1, 0, the empty
// string, which char(84) blank-pads).
func (w *Workload) Ingest(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	// The first connection says the engine; the PostgreSQL load reuses it.
	first, err := connect(ctx)
	if err != nil {
		return fmt.Errorf("tpcb: ingest: %w", err)
	}
	if mc, ok := mariadb.Of(first); ok {
		defer mc.Close(context.Background())
		return w.mariaIngest(ctx, mc, progress)
	}
	reuse := func(ctx context.Context) (workload.Conn, error) {
		if c := first; c != nil {
			first = nil
			return c, nil
		}
		return connect(ctx)
	}
	if err := workload.LoadFrozen(ctx, reuse, "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers", w.tables(), progress); err != nil {
		return fmt.Errorf("tpcb: ingest: %w", err)
	}
	return nil
}

// maxRowSize bounds an encoded row.
const maxRowSize = 64

// tables are the generated tables in pgbench's load order (branches,
// tellers, accounts: the referenced ones first, in case foreign keys exist).
// Row id is 1-based.
func (w *Workload) tables() []workload.CopyTable {
	big := w.bigAccounts()
	return []workload.CopyTable{
		{Name: "pgbench_branches", First: 1, Last: w.scale * branchesPerScale, Encode: encodeBranch, MaxRow: maxRowSize},
		{Name: "pgbench_tellers", First: 1, Last: w.scale * tellersPerScale, Encode: encodeTeller, MaxRow: maxRowSize},
		{Name: "pgbench_accounts", First: 1, Last: w.scale * accountsPerScale,
			Encode: func(buf []byte, id int64) []byte { return encodeAccount(buf, id, big) }, MaxRow: maxRowSize},
	}
}

// encodeBranch is pgbench's initBranch: bid, bbalance 0, filler NULL.
func encodeBranch(buf []byte, bid int64) []byte {
	buf = workload.AppendFieldCount(buf, 3)
	buf = workload.AppendInt4(buf, bid)
	buf = workload.AppendInt4(buf, 0)
	return workload.AppendNull(buf)
}

// encodeTeller is pgbench's initTeller: tid, bid = (tid-1)/10+1, tbalance 0,
// filler NULL.
func encodeTeller(buf []byte, tid int64) []byte {
	buf = workload.AppendFieldCount(buf, 4)
	buf = workload.AppendInt4(buf, tid)
	buf = workload.AppendInt4(buf, (tid-1)/tellersPerScale+1)
	buf = workload.AppendInt4(buf, 0)
	return workload.AppendNull(buf)
}

// encodeAccount is pgbench's initAccount: aid, bid = (aid-1)/100000+1,
// abalance 0, filler ” which char(84) blank-pads.
func encodeAccount(buf []byte, aid int64, big bool) []byte {
	buf = workload.AppendFieldCount(buf, 4)
	if big {
		buf = workload.AppendInt8(buf, aid)
	} else {
		buf = workload.AppendInt4(buf, aid)
	}
	buf = workload.AppendInt4(buf, (aid-1)/accountsPerScale+1)
	buf = workload.AppendInt4(buf, 0)
	return binary.BigEndian.AppendUint32(buf, 0) // empty string
}
