package tpch

// orderRow is a row of ORDERS with its LINEITEM rows (dbgen generates them
// together: mk_order).
type orderRow struct {
	key      int64
	cust     int64
	status   byte  // F, O or P
	total    int64 // cents
	date     int64 // days from 1992-01-01
	priority int   // index into priorities
	clerk    int64
	comment  []byte
	lines    []lineRow
}

// lineRow is a row of LINEITEM.
type lineRow struct {
	part, supp, number    int64
	qty                   int64
	price                 int64 // l_extendedprice in cents
	discount, tax         int64 // hundredths
	returnFlag, status    byte
	ship, commit, receipt int64 // days from 1992-01-01
	instruct, mode        int   // indexes into instructions and shipModes
	comment               []byte
}

// The streams of ORDERS and LINEITEM, by position in orderGen.t.
const (
	oCust = iota
	oDate
	oPrio
	oClerk
	oCmnt
	oLines
	lQty
	lDisc
	lTax
	lInstr
	lMode
	lCmnt
	lPart
	lSupp
	lShip
	lCommit
	lReceipt
	lFlag
)

type orderGen struct {
	z    sizes
	pool []byte
	t    tableStreams
	row  orderRow
}

func newOrderGen(z sizes) *orderGen {
	return &orderGen{z: z, pool: textPool(), row: orderRow{lines: make([]lineRow, 0, maxLines)},
		t: newTableStreams(sOCkey, sOOdate, sOPrio, sOClrk, sOCmnt, sOLcnt,
			sLQty, sLDcnt, sLTax, sLShip, sLSmode, sLCmnt, sLPkey, sLSkey, sLSdte, sLCdte, sLRdte, sLRflg)}
}

// custMortality: every third customer places no order (CUST_MORTALITY).
const custMortality = 3

// gen makes the i-th order and its lines (clause 4.2.3, ORDERS and
// LINEITEM; dbgen's mk_order).
func (g *orderGen) gen(i int64) *orderRow { return g.genAt(i, sparseKey(i)) }

// genAt makes the order of the streams' row i with order key key: the
// loaded orders have key sparseKey(i); the refresh sets' orders continue
// the streams past the loaded rows with keys of their own (refresh.go).
func (g *orderGen) genAt(i, key int64) *orderRow {
	g.t.at(i)
	s := g.t.streams
	r := &g.row
	r.key = key
	// O_CUSTKEY: not a multiple of 3, moved up, then down, then up...
	c := s[oCust].unifInt(1, g.z.customers)
	for delta := int64(1); c%custMortality == 0; delta = -delta {
		c = min(c+delta, g.z.customers)
	}
	r.cust = c
	r.date = s[oDate].unifInt(0, orderDays-1)
	r.priority = priorities.pick(&s[oPrio])
	r.clerk = s[oClerk].unifInt(1, g.z.clerks)
	r.comment = comment(g.pool, &s[oCmnt], orderComment)
	n := s[oLines].unifInt(1, maxLines)
	r.lines = r.lines[:n]
	r.total = 0
	shipped := int64(0)
	for k := range r.lines {
		l := &r.lines[k]
		l.number = int64(k + 1)
		l.qty = s[lQty].unifInt(1, 50)
		l.discount = s[lDisc].unifInt(0, 10)
		l.tax = s[lTax].unifInt(0, 8)
		l.instruct = instructions.pick(&s[lInstr])
		l.mode = shipModes.pick(&s[lMode])
		l.comment = comment(g.pool, &s[lCmnt], lineComment)
		l.part = s[lPart].unifInt(1, g.z.parts)
		l.supp = partSupplier(l.part, s[lSupp].unifInt(0, suppsPerPart-1), g.z.suppliers)
		l.price = rpb(l.part) * l.qty
		// O_TOTALPRICE: sum of price x (1 - discount) x (1 + tax), each
		// product rounded down to the cent as dbgen's integers do.
		r.total += l.price * (100 - l.discount) / 100 * (100 + l.tax) / 100
		l.ship = r.date + s[lShip].unifInt(1, 121)
		l.commit = r.date + s[lCommit].unifInt(30, 90)
		l.receipt = l.ship + s[lReceipt].unifInt(1, 30)
		l.returnFlag = 'N'
		if l.receipt <= currentDay {
			l.returnFlag = returnFlags.words[returnFlags.pick(&s[lFlag])][0]
		}
		l.status = 'O'
		if l.ship <= currentDay {
			l.status = 'F'
			shipped++
		}
	}
	switch shipped {
	case 0:
		r.status = 'O'
	case n:
		r.status = 'F'
	default:
		r.status = 'P'
	}
	g.t.done()
	return r
}

// lineCount is the number of lines of the i-th order, one draw of its
// stream, for counting LINEITEM's rows without generating them.
func lineCount(i int64) int64 {
	s := column(sOLcnt, i)
	return s.unifInt(1, maxLines)
}
