package tpcc

import (
	"testing"
	"time"
)

// TestNURandRanges checks that NURand(A, x, y) stays in [x .. y], reaches
// both ends, and is not uniform (clause 2.1.6).
func TestNURandRanges(t *testing.T) {
	r := newRNG(1, 2)
	for _, tc := range []struct{ a, x, y, c int }{
		{aLast, 0, 999, 0}, {aLast, 0, 999, 255}, {aCID, 1, 3000, 17}, {aCID, 1, 3000, 1023}, {aItem, 1, 100000, 4242},
	} {
		counts := make([]int, tc.y-tc.x+1)
		const n = 2000000
		for range n {
			v := r.nurand(tc.a, tc.c, tc.x, tc.y)
			if v < tc.x || v > tc.y {
				t.Fatalf("NURand(%d, %d, %d) with C %d = %d", tc.a, tc.x, tc.y, tc.c, v)
			}
			counts[v-tc.x]++
		}
		lo, hi := n, 0
		for _, k := range counts {
			lo, hi = min(lo, k), max(hi, k)
		}
		// Every value of C_LAST's range is drawn; over C_ID's some values
		// are rarer than 1 in 2,000,000, but both ends come.
		if tc.a == aLast && lo == 0 || tc.a == aCID && (counts[0] == 0 || counts[len(counts)-1] == 0) {
			t.Errorf("NURand(%d, %d, %d): values never drawn (ends: %d, %d)", tc.a, tc.x, tc.y, counts[0], counts[len(counts)-1])
		}
		// The OR of two uniform draws skews the distribution: the most
		// frequent value is drawn several times as often as the least.
		if lo > 0 && hi < 3*lo {
			t.Errorf("NURand(%d, %d, %d): counts from %d to %d look uniform", tc.a, tc.x, tc.y, lo, hi)
		}
	}
}

// TestRandRange checks random(x, y) includes both ends and nothing else.
func TestRandRange(t *testing.T) {
	r := newRNG(3, 4)
	seen := map[int]bool{}
	for range 10000 {
		v := r.rand(5, 15)
		if v < 5 || v > 15 {
			t.Fatalf("random(5, 15) = %d", v)
		}
		seen[v] = true
	}
	if len(seen) != 11 {
		t.Fatalf("random(5, 15) drew %d distinct values", len(seen))
	}
}

// TestConstantsDelta checks clause 2.1.6.1 over many seeds: the run-time C
// of C_LAST differs from the load C by 65 to 119, neither 96 nor 112, and
// every C lies in [0 .. A].
func TestConstantsDelta(t *testing.T) {
	for seed := range uint64(20000) {
		k := newConstants(seed)
		d := k.cLast - k.cLoad
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 {
			t.Fatalf("seed %d: C_LOAD %d, C_RUN %d: delta %d", seed, k.cLoad, k.cLast, d)
		}
		if k.cLoad < 0 || k.cLoad > aLast || k.cLast < 0 || k.cLast > aLast || k.cID < 0 || k.cID > aCID || k.cItem < 0 || k.cItem > aItem {
			t.Fatalf("seed %d: constants %+v out of range", seed, k)
		}
	}
	for _, d := range []struct {
		delta int
		ok    bool
	}{{64, false}, {65, true}, {96, false}, {112, false}, {119, true}, {120, false}} {
		if validDelta(d.delta) != d.ok {
			t.Errorf("validDelta(%d) = %v", d.delta, !d.ok)
		}
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 40: "BARPRESBAR", 999: "EINGEINGEING"} {
		if got := lastName(n); got != want {
			t.Errorf("lastName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSample(t *testing.T) {
	r := newRNG(5, 6)
	s := r.sample(3000, 300)
	if s.count() != 300 {
		t.Fatalf("sample(3000, 300) marked %d", s.count())
	}
	p := make([]int32, 3000)
	r.permute(p)
	seen := newBitset(3001)
	for _, v := range p {
		if v < 1 || v > 3000 || seen.has(int(v)) {
			t.Fatalf("permutation holds %d twice or out of range", v)
		}
		seen.set(int(v))
	}
}

// fillAlnumFields is fillAlnum field by field, as it was before its
// whole-draw path: the reference the data must not move from.
func fillAlnumFields(r *rng, dst []byte) {
	var x uint64
	left := 0
	for i := 0; i < len(dst); {
		if left == 0 {
			x, left = r.pcg.Uint64(), 10
		}
		v := x & 63
		x >>= 6
		left--
		if v < 62 {
			dst[i] = alnum[v]
			i++
		}
	}
}

// TestFillAlnum: fillAlnum writes the characters fillAlnumFields does,
// and leaves the stream at the same draw, for every length up to 300.
func TestFillAlnum(t *testing.T) {
	a, b := newRNG(3, 4), newRNG(3, 4)
	for n := range 301 {
		for range 20 {
			got, want := make([]byte, n), make([]byte, n)
			a.fillAlnum(got)
			fillAlnumFields(&b, want)
			if string(got) != string(want) {
				t.Fatalf("length %d: %q, want %q", n, got, want)
			}
			if a.rand(0, 1<<30) != b.rand(0, 1<<30) {
				t.Fatalf("length %d: the stream moved on by another number of draws", n)
			}
		}
	}
	for x := range uint64(64) {
		for k := range 10 {
			if got, want := skips(x<<(6*k)), x >= 62; got != want {
				t.Fatalf("skips(%d << %d) = %v", x, 6*k, got)
			}
		}
	}
}

func TestStrings(t *testing.T) {
	r := newRNG(7, 8)
	b := make([]byte, 1000)
	r.fillAlnum(b)
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			t.Fatalf("a-string holds %q", c)
		}
	}
	r.fillDigits(b)
	for _, c := range b {
		if c < '0' || c > '9' {
			t.Fatalf("n-string holds %q", c)
		}
	}
	r.fillLetters(b)
	for _, c := range b {
		if c < 'A' || c > 'Z' {
			t.Fatalf("letters hold %q", c)
		}
	}
}

// TestTerminal checks the home warehouse and district of each terminal.
func TestTerminal(t *testing.T) {
	// 10 terminals per warehouse: each district once (clause 4.2.2).
	seen := map[[2]int]bool{}
	for i := range 30 {
		w, d := Terminal(i, 30, 3)
		if w != i%3+1 {
			t.Fatalf("terminal %d: warehouse %d", i, w)
		}
		seen[[2]int{w, d}] = true
	}
	if len(seen) != 30 {
		t.Fatalf("30 terminals over 3 warehouses use %d (warehouse, district) pairs", len(seen))
	}
	// 3 terminals on 1 warehouse: spread over the districts, not 1, 2, 3.
	var ds []int
	for i := range 3 {
		_, d := Terminal(i, 3, 1)
		ds = append(ds, d)
	}
	if ds[0] != 1 || ds[1] != 4 || ds[2] != 7 {
		t.Errorf("3 terminals: districts %v, want [1 4 7]", ds)
	}
	// 25 terminals on 2 warehouses: 13 and 12, each district 1 or 2 times.
	per := map[[2]int]int{}
	for i := range 25 {
		w, d := Terminal(i, 25, 2)
		if d < 1 || d > 10 {
			t.Fatalf("district %d", d)
		}
		per[[2]int{w, d}]++
	}
	for k, n := range per {
		if n < 1 || n > 2 {
			t.Errorf("%v has %d terminals", k, n)
		}
	}
	if len(per) != 20 {
		t.Errorf("25 terminals cover %d of 20 districts", len(per))
	}
	// Fewer terminals than warehouses.
	if w, d := Terminal(1, 2, 5); w != 2 || d != 1 {
		t.Errorf("terminal 1 of 2 over 5 warehouses: %d, %d", w, d)
	}
}

// TestDeck checks that every deck deals the mix exactly (clause 5.2.4.2).
func TestDeck(t *testing.T) {
	w := mustWorkload(t, 1, DefaultOptions())
	c := w.newClient(clientInfo(0, 1, 9))
	if len(c.deck) != 100 {
		t.Fatalf("deck of %d cards", len(c.deck))
	}
	var counts [numTxns]int
	for range 1000 {
		counts[c.Pick()]++
	}
	if counts != [numTxns]int{450, 430, 40, 40, 40} {
		t.Fatalf("10 decks dealt %v", counts)
	}
	o := DefaultOptions()
	o.Mix = [numTxns]int{50, 50, 0, 0, 0}
	w = mustWorkload(t, 1, o)
	c = w.newClient(clientInfo(0, 1, 9))
	counts = [numTxns]int{}
	for range 10 {
		counts[c.Pick()]++
	}
	if len(c.deck) != 2 || counts != [numTxns]int{5, 5, 0, 0, 0} {
		t.Fatalf("deck %v dealt %v", c.deck, counts)
	}
}

// TestPace checks the keying and think times of clause 5.2.5.
func TestPace(t *testing.T) {
	w := mustWorkload(t, 1, DefaultOptions())
	if k, th := w.newClient(clientInfo(0, 1, 1)).Pace(NewOrder); k != 0 || th != 0 {
		t.Fatalf("pacing off: %v, %v", k, th)
	}
	o := DefaultOptions()
	o.KeyingAndThinkTime = true
	c := mustWorkload(t, 1, o).newClient(clientInfo(0, 1, 1))
	for typ := range numTxns {
		var sum time.Duration
		const n = 20000
		for range n {
			k, th := c.Pace(typ)
			if k != keyingTimes[typ] || th < 0 || th > 10*meanThinkTimes[typ] {
				t.Fatalf("%s: keying %v, think %v", txnNames[typ], k, th)
			}
			sum += th
		}
		// The mean of the cut distribution is (1 - e^-10) of the mean.
		if mean := sum / n; mean < meanThinkTimes[typ]*96/100 || mean > meanThinkTimes[typ]*104/100 {
			t.Errorf("%s: mean think time %v, want about %v", txnNames[typ], mean, meanThinkTimes[typ])
		}
	}
}
