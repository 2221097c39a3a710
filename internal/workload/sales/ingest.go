package sales

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Ingest loads the generated rows (see generator) in one transaction on one
// connection: truncate the three tables, restarting ol_id's identity at its
// start, then COPY ... FREEZE customer, orders and orderline in binary, and
// commit. The truncate in the same transaction allows FREEZE, which writes
// the rows frozen and all-visible, so the VACUUM of PostIngest has little to
// do (tpcb measured one connection with FREEZE to be no slower than several
// without on 2 cores; see docs/workloads.md). Progress is reported every
// 10,000 rows. On MariaDB the tables are loaded with LOAD DATA (mariadb.go).
func (w *Workload) Ingest(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	first, err := connect(ctx)
	if err != nil {
		return fmt.Errorf("sales: ingest: connect: %w", err)
	}
	if mc, ok := mariadb.Of(first); ok {
		defer mc.Close(context.WithoutCancel(ctx))
		return w.mariaIngest(ctx, mc, progress)
	}
	reuse := func(ctx context.Context) (workload.Conn, error) {
		if c := first; c != nil {
			first = nil
			return c, nil
		}
		return connect(ctx)
	}
	if err := workload.LoadFrozen(ctx, reuse, "truncate table orderline, orders, customer restart identity", w.tables(), progress); err != nil {
		return fmt.Errorf("sales: ingest: %w", err)
	}
	return nil
}

// maxRowSize bounds an encoded row of any of the tables (an order, the
// widest, is 2 + 6 x 4 + 4 + 4 + 8 + 6 + 20 + 8 = 76 bytes).
const maxRowSize = 128

// tables are the generated tables, whole, customers first: the ones
// referenced first.
func (w *Workload) tables() []workload.CopyTable {
	g := newGenerator(w.opts.Seed, w.customers, w.orders)
	return []workload.CopyTable{
		{Name: "customer", First: 1, Last: w.customers, Encode: g.encodeCustomer, MaxRow: maxRowSize},
		{Name: "orders", First: 1, Last: w.orders, Encode: g.encodeOrder, MaxRow: maxRowSize},
		{Name: "orderline", First: 1, Last: w.lines, Encode: g.encodeLine, MaxRow: maxRowSize},
	}
}

// unpaid is the status of every loaded order; T2 sets "PAID".
const unpaid = "UNPAID"

// encodeCustomer appends customer c: c_id, c_name, c_credit, c_updateddate.
func (g *generator) encodeCustomer(buf []byte, c int64) []byte {
	buf = workload.AppendFieldCount(buf, 4)
	buf = workload.AppendInt4(buf, c)
	buf, at := workload.BeginField(buf)
	buf = workload.EndField(appendCustomerName(buf, c), at)
	buf = workload.AppendNumericField(buf, g.credit(c), 2)
	return workload.AppendTimestamp(buf, epoch)
}

// encodeOrder appends order o: o_id, o_c_id, o_date, o_status,
// o_totalamount, o_updateddate.
func (g *generator) encodeOrder(buf []byte, o int64) []byte {
	date := g.orderDate(o)
	buf = workload.AppendFieldCount(buf, 6)
	buf = workload.AppendInt4(buf, o)
	buf = workload.AppendInt4(buf, g.orderCustomer(o))
	buf = workload.AppendTimestamp(buf, date)
	buf = workload.AppendText(buf, unpaid)
	buf = workload.AppendNumericField(buf, g.orderTotal(o), 2)
	return workload.AppendTimestamp(buf, date)
}

// encodeLine appends order line l: ol_id, ol_o_id, ol_p_id, ol_quantity,
// ol_amount.
func (g *generator) encodeLine(buf []byte, l int64) []byte {
	p, q := g.product(l), g.quantity(l)
	buf = workload.AppendFieldCount(buf, 5)
	buf = workload.AppendInt8(buf, l)
	buf = workload.AppendInt4(buf, (l-1)/linesPerOrder+1)
	buf = workload.AppendInt4(buf, p)
	buf = workload.AppendInt4(buf, q)
	return workload.AppendNumericField(buf, q*g.price(p), 2)
}
