package tpch

// dbgen's random numbers (TPC-H clause 4.2.2 and dbgen's rnd.c): a
// Park-Miller "minimal standard" generator, X(n) = 16807 X(n-1) mod
// (2^31 - 1), one stream per column, each with its own initial seed. After
// every row each stream of the row's table is moved on to a fixed number
// of draws per row (its boundary), so the draws of row r start at draw
// (r-1) x boundary of the stream and any range of rows can be generated on
// its own: the seed of row r is seed x 16807^((r-1) x boundary) mod M.

const (
	rngA = 16807
	rngM = 2147483647 // 2^31 - 1
	// maxLong is dbgen's MAX_LONG: a draw in 0..maxLong is special (see
	// unifInt).
	maxLong = 0x7FFFFFFF
)

// mulPow is A^n mod M by squaring (dbgen's NthElement).
func mulPow(n int64) int64 {
	z, m := int64(1), int64(rngA)
	for n > 0 {
		if n&1 != 0 {
			z = z * m % rngM
		}
		n >>= 1
		m = m * m % rngM
	}
	return z
}

// skip is seed moved on by n draws.
func skip(seed, n int64) int64 { return seed * mulPow(n) % rngM }

// stream is one column's generator: where the current row's draws start
// and the next draw.
type stream struct {
	rowStart int64 // seed at the start of the current row
	cur      int64 // seed after the draws made so far in this row
	perRow   int64 // A^boundary mod M: from one row's start to the next
}

// newStream is the stream with dbgen seed seed and boundary draws per
// row, positioned at row 1.
func newStream(seed, boundary int64) stream {
	return stream{rowStart: seed, cur: seed, perRow: mulPow(boundary)}
}

// seek positions s at row r (1-based) of a stream of the given seed and
// boundary.
func (s *stream) seek(seed, boundary, r int64) {
	s.rowStart = skip(seed, boundary*(r-1))
	s.cur = s.rowStart
}

// nextRow moves s to the start of the next row, whatever it drew in this
// one (dbgen's row_stop).
func (s *stream) nextRow() {
	s.rowStart = s.rowStart * s.perRow % rngM
	s.cur = s.rowStart
}

// next is the next raw seed value (dbgen's NextRand).
func (s *stream) next() int64 {
	s.cur = s.cur * rngA % rngM
	return s.cur
}

// unifInt is a draw uniform in low..high, both included, computed as
// dbgen's UnifInt does, in double precision: low + trunc(x / M x range).
// For 0..maxLong dbgen computes the range in 32-bit arithmetic, where
// maxLong + 1 wraps to -2^31; the draw is then negative, and a_rnd uses
// its bits as they are. Both are reproduced.
func (s *stream) unifInt(low, high int64) int64 {
	rng := float64(high - low + 1)
	if low == 0 && high == maxLong {
		rng = -2147483648.0
	}
	v := s.next()
	return low + int64(float64(v)/float64(rngM)*rng)
}

// The streams of dbgen (rnd.h's Seed table): initial seed and draws per
// row. The indexes are dbgen's stream numbers; the seeds are the
// specification's data.
const (
	sPMfg     = 0
	sPBrnd    = 1
	sPType    = 2
	sPSize    = 3
	sPCntr    = 4
	sText     = 5 // the text pool
	sPCmnt    = 6
	sPSQty    = 7
	sPSScst   = 8
	sPSCmnt   = 9
	sOSupp    = 10
	sOClrk    = 11
	sOCmnt    = 12
	sOOdate   = 13
	sLQty     = 14
	sLDcnt    = 15
	sLTax     = 16
	sLShip    = 17
	sLSmode   = 18
	sLPkey    = 19
	sLSkey    = 20
	sLSdte    = 21
	sLCdte    = 22
	sLRdte    = 23
	sLRflg    = 24
	sLCmnt    = 25
	sCAddr    = 26
	sCNtrg    = 27
	sCPhne    = 28
	sCAbal    = 29
	sCMseg    = 30
	sCCmnt    = 31
	sSAddr    = 32
	sSNtrg    = 33
	sSPhne    = 34
	sSAbal    = 35
	sSCmnt    = 36
	sPName    = 37
	sOPrio    = 38
	sHVar     = 39
	sOCkey    = 40
	sNCmnt    = 41
	sRCmnt    = 42
	sOLcnt    = 43
	sBBBJnk   = 44
	sBBBType  = 45
	sBBBCmnt  = 46
	sBBBOffst = 47
	numSeeds  = 48
)

// Lines per order and suppliers per part bound the per-row draws of the
// line and partsupp streams.
const (
	maxLines     = 7 // O_LCNT_MAX
	suppsPerPart = 4 // SUPP_PER_PART
)

// seeds are dbgen's initial seeds and boundaries, by stream.
var seeds = [numSeeds]struct{ seed, boundary int64 }{
	sPMfg:     {1, 1},
	sPBrnd:    {46831694, 1},
	sPType:    {1841581359, 1},
	sPSize:    {1193163244, 1},
	sPCntr:    {727633698, 1},
	sText:     {933588178, 1},
	sPCmnt:    {804159733, 2},
	sPSQty:    {1671059989, suppsPerPart},
	sPSScst:   {1051288424, suppsPerPart},
	sPSCmnt:   {1961692154, suppsPerPart * 2},
	sOSupp:    {1227283347, 1},
	sOClrk:    {1171034773, 1},
	sOCmnt:    {276090261, 2},
	sOOdate:   {1066728069, 1},
	sLQty:     {209208115, maxLines},
	sLDcnt:    {554590007, maxLines},
	sLTax:     {721958466, maxLines},
	sLShip:    {1371272478, maxLines},
	sLSmode:   {675466456, maxLines},
	sLPkey:    {1808217256, maxLines},
	sLSkey:    {2095021727, maxLines},
	sLSdte:    {1769349045, maxLines},
	sLCdte:    {904914315, maxLines},
	sLRdte:    {373135028, maxLines},
	sLRflg:    {717419739, maxLines},
	sLCmnt:    {1095462486, maxLines * 2},
	sCAddr:    {881155353, 9},
	sCNtrg:    {1489529863, 1},
	sCPhne:    {1521138112, 3},
	sCAbal:    {298370230, 1},
	sCMseg:    {1140279430, 1},
	sCCmnt:    {1335826707, 2},
	sSAddr:    {706178559, 9},
	sSNtrg:    {110356601, 1},
	sSPhne:    {884434366, 3},
	sSAbal:    {962338209, 1},
	sSCmnt:    {1341315363, 2},
	sPName:    {709314158, 92},
	sOPrio:    {591449447, 1},
	sHVar:     {431918286, 1},
	sOCkey:    {851767375, 1},
	sNCmnt:    {606179079, 2},
	sRCmnt:    {1500869201, 2},
	sOLcnt:    {1434868289, 1},
	sBBBJnk:   {263032577, 1},
	sBBBType:  {753643799, 1},
	sBBBCmnt:  {202794285, 1},
	sBBBOffst: {715851524, 1},
}

// column is the stream of dbgen stream id positioned at row r.
func column(id int, r int64) stream {
	s := newStream(seeds[id].seed, seeds[id].boundary)
	s.seek(seeds[id].seed, seeds[id].boundary, r)
	return s
}
