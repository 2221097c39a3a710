package tpch

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// The rows in dbgen's text format (.tbl: fields separated by '|', money as
// dollars.cents, dates YYYY-MM-DD, no '|' after the last field), for
// comparing with dbgen's own output and for loading other engines.

// TableNames are the eight tables, referenced ones first.
func TableNames() []string { return slices.Clone(tableNames) }

// WriteTable writes table name's rows in dbgen's .tbl format: the bytes
// dbgen -s SF writes (without the '|' some builds put at the end of each
// line).
func (w *Workload) WriteTable(out io.Writer, name string) error {
	if !slices.Contains(tableNames, name) {
		return fmt.Errorf("tpch: no table %q", name)
	}
	var buf []byte
	flush := func(force bool) error {
		if len(buf) < 1<<20 && !force {
			return nil
		}
		_, err := out.Write(buf)
		buf = buf[:0]
		return err
	}
	z := w.z
	var err error
	switch name {
	case "part", "partsupp":
		g := newPartGen(z)
		for p := int64(1); p <= z.parts && err == nil; p++ {
			if name == "part" {
				buf, _ = tblPart(buf, nil, g.gen(p))
			} else {
				_, buf = tblPart(nil, buf, g.gen(p))
			}
			err = flush(false)
		}
	case "supplier":
		g := newSupplierGen()
		for k := int64(1); k <= z.suppliers && err == nil; k++ {
			buf = tblSupplier(buf, g.gen(k))
			err = flush(false)
		}
	case "customer":
		g := newCustomerGen()
		for k := int64(1); k <= z.customers && err == nil; k++ {
			buf = tblCustomer(buf, g.gen(k))
			err = flush(false)
		}
	case "orders", "lineitem":
		g := newOrderGen(z)
		for i := int64(1); i <= z.orders && err == nil; i++ {
			if name == "orders" {
				buf, _ = tblOrder(buf, nil, g.gen(i))
			} else {
				_, buf = tblOrder(nil, buf, g.gen(i))
			}
			err = flush(false)
		}
	case "nation":
		g := newNationGen()
		for n := int64(0); n < numNations; n++ {
			buf = tblNation(buf, g, n)
		}
	case "region":
		g := newNationGen()
		for r := int64(0); r < numRegions; r++ {
			buf = tblRegion(buf, g, r)
		}
	}
	if err != nil {
		return err
	}
	return flush(true)
}

func appendMoney(b []byte, cents int64) []byte {
	if cents < 0 {
		b = append(b, '-')
		cents = -cents
	}
	b = strconv.AppendInt(b, cents/100, 10)
	b = append(b, '.')
	return appendPadded(b, cents%100, 2)
}

func sep(b []byte) []byte { return append(b, '|') }

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// tblPart appends part p's line and its four partsupp lines.
func tblPart(part, ps []byte, r *partRow) ([]byte, []byte) {
	part = sep(appendInt(part, r.key))
	part = sep(append(part, r.name...))
	part = sep(appendInt(append(part, "Manufacturer#"...), r.mfgr))
	part = sep(appendPadded(append(part, "Brand#"...), r.brand, 2))
	part = sep(append(part, partTypes.words[r.typ]...))
	part = sep(appendInt(part, r.size))
	part = sep(append(part, containers.words[r.container]...))
	part = sep(appendMoney(part, r.price))
	part = append(append(part, r.comment...), '\n')
	for _, s := range r.supps {
		ps = sep(appendInt(ps, r.key))
		ps = sep(appendInt(ps, s.supp))
		ps = sep(appendInt(ps, s.qty))
		ps = sep(appendMoney(ps, s.cost))
		ps = append(append(ps, s.comment...), '\n')
	}
	return part, ps
}

func tblSupplier(b []byte, r *supplierRow) []byte {
	b = sep(appendInt(b, r.key))
	b = sep(appendPadded(append(b, "Supplier#"...), r.key, 9))
	b = sep(append(b, r.address...))
	b = sep(appendInt(b, r.nation))
	b = sep(append(b, r.phone...))
	b = sep(appendMoney(b, r.acctbal))
	return append(append(b, r.comment...), '\n')
}

func tblCustomer(b []byte, r *customerRow) []byte {
	b = sep(appendInt(b, r.key))
	b = sep(appendPadded(append(b, "Customer#"...), r.key, 9))
	b = sep(append(b, r.address...))
	b = sep(appendInt(b, r.nation))
	b = sep(append(b, r.phone...))
	b = sep(appendMoney(b, r.acctbal))
	b = sep(append(b, segments.words[r.segment]...))
	return append(append(b, r.comment...), '\n')
}

func tblOrder(o, l []byte, r *orderRow) ([]byte, []byte) {
	o = sep(appendInt(o, r.key))
	o = sep(appendInt(o, r.cust))
	o = sep(append(o, r.status))
	o = sep(appendMoney(o, r.total))
	o = sep(append(o, dayString(r.date)...))
	o = sep(append(o, priorities.words[r.priority]...))
	o = sep(appendPadded(append(o, "Clerk#"...), r.clerk, 9))
	o = sep(append(o, '0'))
	o = append(append(o, r.comment...), '\n')
	for _, x := range r.lines {
		l = sep(appendInt(l, r.key))
		l = sep(appendInt(l, x.part))
		l = sep(appendInt(l, x.supp))
		l = sep(appendInt(l, x.number))
		l = sep(appendInt(l, x.qty))
		l = sep(appendMoney(l, x.price))
		l = sep(appendMoney(l, x.discount))
		l = sep(appendMoney(l, x.tax))
		l = sep(append(l, x.returnFlag))
		l = sep(append(l, x.status))
		l = sep(append(l, dayString(x.ship)...))
		l = sep(append(l, dayString(x.commit)...))
		l = sep(append(l, dayString(x.receipt)...))
		l = sep(append(l, instructions.words[x.instruct]...))
		l = sep(append(l, shipModes.words[x.mode]...))
		l = append(append(l, x.comment...), '\n')
	}
	return o, l
}

func tblNation(b []byte, g *nationGen, n int64) []byte {
	b = sep(appendInt(b, n))
	b = sep(append(b, nations[n].name...))
	b = sep(appendInt(b, int64(nations[n].region)))
	return append(append(b, g.nationComment(n)...), '\n')
}

func tblRegion(b []byte, g *nationGen, r int64) []byte {
	b = sep(appendInt(b, r))
	b = sep(append(b, regions[r]...))
	return append(append(b, g.regionComment(r)...), '\n')
}
