package tpch

import "github.com/tenantbench/tenantbench/internal/workload"

// Rows in COPY's binary format, straight from the generators: numeric
// and date written by hand into the COPY buffer, so that a row allocates
// nothing.

// appendNamed appends a text field prefix followed by n on width digits
// ("Customer#000000001").
func appendNamed(buf []byte, prefix string, n int64, width int) []byte {
	buf, at := workload.BeginField(buf)
	buf = appendPadded(append(buf, prefix...), n, width)
	return workload.EndField(buf, at)
}

// appendDate appends a date field: day d from 1992-01-01.
func appendDate(buf []byte, d int64) []byte { return workload.AppendDate(buf, d+pgDayOffset) }

// appendKey appends an order key, int4 or int8 as the schema has it.
func appendKey(buf []byte, k int64, big bool) []byte {
	if big {
		return workload.AppendInt8(buf, k)
	}
	return workload.AppendInt4(buf, k)
}

// encodePart appends part r.
func encodePart(buf []byte, r *partRow) []byte {
	buf = workload.AppendFieldCount(buf, 9)
	buf = workload.AppendInt4(buf, r.key)
	buf = workload.AppendBytes(buf, r.name)
	buf = appendNamed(buf, "Manufacturer#", r.mfgr, 1)
	buf = appendNamed(buf, "Brand#", r.brand, 2)
	buf = workload.AppendText(buf, partTypes.words[r.typ])
	buf = workload.AppendInt4(buf, r.size)
	buf = workload.AppendText(buf, containers.words[r.container])
	buf = workload.AppendNumericField(buf, r.price, 2)
	return workload.AppendBytes(buf, r.comment)
}

// encodePartsupp appends part r's four partsupp rows.
func encodePartsupp(buf []byte, r *partRow) []byte {
	for i := range r.supps {
		s := &r.supps[i]
		buf = workload.AppendFieldCount(buf, 5)
		buf = workload.AppendInt4(buf, r.key)
		buf = workload.AppendInt4(buf, s.supp)
		buf = workload.AppendInt4(buf, s.qty)
		buf = workload.AppendNumericField(buf, s.cost, 2)
		buf = workload.AppendBytes(buf, s.comment)
	}
	return buf
}

// encodeSupplier appends supplier r.
func encodeSupplier(buf []byte, r *supplierRow) []byte {
	buf = workload.AppendFieldCount(buf, 7)
	buf = workload.AppendInt4(buf, r.key)
	buf = appendNamed(buf, "Supplier#", r.key, 9)
	buf = workload.AppendBytes(buf, r.address)
	buf = workload.AppendInt4(buf, r.nation)
	buf = workload.AppendBytes(buf, r.phone)
	buf = workload.AppendNumericField(buf, r.acctbal, 2)
	return workload.AppendBytes(buf, r.comment)
}

// encodeCustomer appends customer r.
func encodeCustomer(buf []byte, r *customerRow) []byte {
	buf = workload.AppendFieldCount(buf, 8)
	buf = workload.AppendInt4(buf, r.key)
	buf = appendNamed(buf, "Customer#", r.key, 9)
	buf = workload.AppendBytes(buf, r.address)
	buf = workload.AppendInt4(buf, r.nation)
	buf = workload.AppendBytes(buf, r.phone)
	buf = workload.AppendNumericField(buf, r.acctbal, 2)
	buf = workload.AppendText(buf, segments.words[r.segment])
	return workload.AppendBytes(buf, r.comment)
}

// encodeOrder appends order r.
func encodeOrder(buf []byte, r *orderRow, big bool) []byte {
	buf = workload.AppendFieldCount(buf, 9)
	buf = appendKey(buf, r.key, big)
	buf = workload.AppendInt4(buf, r.cust)
	buf = workload.AppendBytes(buf, []byte{r.status})
	buf = workload.AppendNumericField(buf, r.total, 2)
	buf = appendDate(buf, r.date)
	buf = workload.AppendText(buf, priorities.words[r.priority])
	buf = appendNamed(buf, "Clerk#", r.clerk, 9)
	buf = workload.AppendInt4(buf, 0) // o_shippriority
	return workload.AppendBytes(buf, r.comment)
}

// encodeLines appends order r's lineitem rows.
func encodeLines(buf []byte, r *orderRow, big bool) []byte {
	for i := range r.lines {
		l := &r.lines[i]
		buf = workload.AppendFieldCount(buf, 16)
		buf = appendKey(buf, r.key, big)
		buf = workload.AppendInt4(buf, l.part)
		buf = workload.AppendInt4(buf, l.supp)
		buf = workload.AppendInt4(buf, l.number)
		buf = workload.AppendNumericField(buf, l.qty*100, 2)
		buf = workload.AppendNumericField(buf, l.price, 2)
		buf = workload.AppendNumericField(buf, l.discount, 2)
		buf = workload.AppendNumericField(buf, l.tax, 2)
		buf = workload.AppendBytes(buf, []byte{l.returnFlag})
		buf = workload.AppendBytes(buf, []byte{l.status})
		buf = appendDate(buf, l.ship)
		buf = appendDate(buf, l.commit)
		buf = appendDate(buf, l.receipt)
		buf = workload.AppendText(buf, instructions.words[l.instruct])
		buf = workload.AppendText(buf, shipModes.words[l.mode])
		buf = workload.AppendBytes(buf, l.comment)
	}
	return buf
}

// encodeNation appends nation n.
func encodeNation(buf []byte, g *nationGen, n int64) []byte {
	buf = workload.AppendFieldCount(buf, 4)
	buf = workload.AppendInt4(buf, n)
	buf = workload.AppendText(buf, nations[n].name)
	buf = workload.AppendInt4(buf, int64(nations[n].region))
	return workload.AppendBytes(buf, g.nationComment(n))
}

// encodeRegion appends region r.
func encodeRegion(buf []byte, g *nationGen, r int64) []byte {
	buf = workload.AppendFieldCount(buf, 3)
	buf = workload.AppendInt4(buf, r)
	buf = workload.AppendText(buf, regions[r])
	return workload.AppendBytes(buf, g.regionComment(r))
}
