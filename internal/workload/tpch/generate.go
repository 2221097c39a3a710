package tpch

import "strconv"

// The generator of the eight tables (clause 4.2.3), row for row dbgen's
// (build.c's mk_part, mk_supp, mk_cust, mk_order, mk_nation, mk_region):
// the same streams, the same draws in the same order, so the same values.
// Each generator keeps its table's streams positioned at a row; asked for
// the next row it moves them on, asked for any other it seeks, so a range
// of rows costs its rows plus one seek.

// table names one of dbgen's row streams' owners.
type tableStreams struct {
	ids     []int
	streams []stream
	next    int64 // the row the streams are positioned at
}

func newTableStreams(ids ...int) tableStreams {
	t := tableStreams{ids: ids, streams: make([]stream, len(ids)), next: 1}
	for i, id := range ids {
		t.streams[i] = newStream(seeds[id].seed, seeds[id].boundary)
	}
	return t
}

// at positions the streams at row r.
func (t *tableStreams) at(r int64) {
	if r == t.next {
		return
	}
	for i, id := range t.ids {
		t.streams[i].seek(seeds[id].seed, seeds[id].boundary, r)
	}
	t.next = r
}

// done moves the streams on to the row after the current one.
func (t *tableStreams) done() {
	for i := range t.streams {
		t.streams[i].nextRow()
	}
	t.next++
}

// rpb is the retail price of part p in cents (clause 4.2.3:
// P_RETAILPRICE = (90000 + ((P_PARTKEY/10) modulo 20001) + 100 x
// (P_PARTKEY modulo 1000)) / 100).
func rpb(p int64) int64 { return 90000 + (p/10)%20001 + (p%1000)*100 }

// partSupplier is the supplier of part p's i-th partsupp row (clause
// 4.2.3: PS_SUPPKEY = (PS_PARTKEY + (i x ((S/4) + (int)(PS_PARTKEY-1)/S)))
// modulo S + 1, S the number of suppliers).
func partSupplier(p, i, suppliers int64) int64 {
	return (p+i*(suppliers/suppsPerPart+(p-1)/suppliers))%suppliers + 1
}

// sparseKey is the order key of the index-th order: of every 32 keys the
// first 8 are used (dbgen's mk_sparse with SPARSE_BITS 2, SPARSE_KEEP 3).
func sparseKey(index int64) int64 { return (index>>3)<<5 | index&7 }

// appendPadded appends n in decimal on at least width digits.
func appendPadded(buf []byte, n int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], n, 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// appendPhone appends a phone number of nation n with three draws from s
// (dbgen's gen_phone: country code 10 + n, then 3, 3 and 4 digits).
func appendPhone(buf []byte, s *stream, n int64) []byte {
	area := s.unifInt(100, 999)
	exchange := s.unifInt(100, 999)
	number := s.unifInt(1000, 9999)
	buf = appendPadded(buf, 10+n, 2)
	buf = append(buf, '-')
	buf = appendPadded(buf, area, 3)
	buf = append(buf, '-')
	buf = appendPadded(buf, exchange, 3)
	buf = append(buf, '-')
	return appendPadded(buf, number, 4)
}
