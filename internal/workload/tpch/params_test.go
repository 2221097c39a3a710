package tpch

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestQgenParams compares the parameters with qgen's own for three seeds.
func TestQgenParams(t *testing.T) {
	for seed, log := range qgenLogs {
		ps := qgenParams(seed, 0.01)
		for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
			f := strings.Split(line, "\t")
			q, _ := strconv.Atoi(f[0])
			if !slices.Equal(ps[q], f[1:]) {
				t.Errorf("seed %d q%02d: %q, qgen's %q", seed, q, ps[q], f[1:])
			}
		}
	}
	// FRACTION depends on SF: qgen -r 7 -s 1 logs MOROCCO 0.0001000000.
	if got := qgenParams(7, 1)[11]; !slices.Equal(got, []string{"MOROCCO", "0.0001000000"}) {
		t.Errorf("seed 7 SF 1 q11: %q", got)
	}
}

// TestParamRanges draws the parameters of 2000 streams and checks each
// against clause 2.4.q.3's domain.
func TestParamRanges(t *testing.T) {
	day := func(s string, from, to string) bool {
		d, err := time.Parse(time.DateOnly, s)
		a, _ := time.Parse(time.DateOnly, from)
		b, _ := time.Parse(time.DateOnly, to)
		return err == nil && !d.Before(a) && !d.After(b)
	}
	firstOfMonth := func(s, from, to string) bool { return day(s, from, to) && strings.HasSuffix(s, "-01") }
	newYear := func(s string) bool {
		return firstOfMonth(s, "1993-01-01", "1997-01-01") && strings.HasSuffix(s, "-01-01")
	}
	num := func(s string, lo, hi int) bool { n, err := strconv.Atoi(s); return err == nil && n >= lo && n <= hi }
	in := func(s string, d *dist) bool { return slices.Contains(d.words, s) }
	brand := regexp.MustCompile(`^Brand#[1-5][1-5]$`)
	syllable3 := []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	for seed := int64(1); seed <= 2000; seed++ {
		ps := qgenParams(seed*7919, 0.01)
		check := func(q int, ok bool) {
			if !ok {
				t.Fatalf("seed %d q%02d: %q outside clause 2.4.%d.3", seed*7919, q, ps[q], q)
			}
		}
		p := func(q, i int) string { return ps[q][i] }
		check(1, len(ps[1]) == 1 && num(p(1, 0), 60, 120))
		check(2, len(ps[2]) == 3 && num(p(2, 0), 1, 50) && slices.Contains(syllable3, p(2, 1)) && in(p(2, 2), regionsUniform))
		check(3, len(ps[3]) == 2 && in(p(3, 0), segments) && day(p(3, 1), "1995-03-01", "1995-03-31"))
		check(4, firstOfMonth(p(4, 0), "1993-01-01", "1997-10-01"))
		check(5, in(p(5, 0), regionsUniform) && newYear(p(5, 1)))
		check(6, newYear(p(6, 0)) && regexp.MustCompile(`^0\.0[2-9]$`).MatchString(p(6, 1)) && num(p(6, 2), 24, 25))
		check(7, in(p(7, 0), nationsUniform) && in(p(7, 1), nationsUniform) && p(7, 0) != p(7, 1))
		check(8, in(p(8, 0), nationsUniform) && in(p(8, 1), regionsUniform) && in(p(8, 2), partTypes))
		check(9, in(p(9, 0), colors))
		check(10, firstOfMonth(p(10, 0), "1993-02-01", "1995-01-01"))
		check(11, in(p(11, 0), nationsUniform) && p(11, 1) == "0.0100000000")
		check(12, in(p(12, 0), shipModes) && in(p(12, 1), shipModes) && p(12, 0) != p(12, 1) && newYear(p(12, 2)))
		check(13, in(p(13, 0), q13Words1) && in(p(13, 1), q13Words2))
		check(14, firstOfMonth(p(14, 0), "1993-01-01", "1997-12-01"))
		check(15, firstOfMonth(p(15, 0), "1993-01-01", "1997-10-01"))
		sizes := map[string]bool{}
		for _, s := range ps[16][2:] {
			sizes[s] = num(s, 1, 50)
		}
		check(16, len(ps[16]) == 10 && brand.MatchString(p(16, 0)) && len(sizes) == 8 && !slices.Contains(slices.Collect(mapValues(sizes)), false) &&
			len(strings.Fields(p(16, 1))) == 2)
		check(17, brand.MatchString(p(17, 0)) && in(p(17, 1), containers))
		check(18, num(p(18, 0), 312, 315))
		check(19, brand.MatchString(p(19, 0)) && brand.MatchString(p(19, 1)) && brand.MatchString(p(19, 2)) &&
			num(p(19, 3), 1, 10) && num(p(19, 4), 10, 20) && num(p(19, 5), 20, 30))
		check(20, in(p(20, 0), colors) && newYear(p(20, 1)) && in(p(20, 2), nationsUniform))
		check(21, in(p(21, 0), nationsUniform))
		codes := map[string]bool{}
		for _, c := range ps[22] {
			codes[c] = num(c, 10, 34)
		}
		check(22, len(ps[22]) == 7 && len(codes) == 7 && !slices.Contains(slices.Collect(mapValues(codes)), false))
	}
}

func mapValues(m map[string]bool) func(func(bool) bool) {
	return func(yield func(bool) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// TestStreamOrder checks the permutation table's rows are permutations
// and the sequence of a client: each query repeat_queries times in a row,
// in the stream's order, restricted to the queries chosen.
func TestStreamOrder(t *testing.T) {
	for s, row := range permutation {
		seen := map[int]bool{}
		for _, q := range row {
			seen[q] = true
		}
		if len(seen) != numQueries || seen[0] {
			t.Fatalf("stream %d: %v is not a permutation of 1..22", s, row)
		}
	}
	o := DefaultOptions()
	o.RepeatQueries, o.Queries = 2, []int{22, 1, 14}
	w := mustNew(t, 0.01, o)
	c := w.newClient(5)
	var got []string
	for range 7 {
		got = append(got, w.TxnNames()[c.Pick()])
	}
	// stream 5: 21 15 4 6 7 16 19 18 14 22 11 13 3 1 ...
	want := []string{"q14", "q14", "q22", "q22", "q01", "q01", "q14"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sequence %v, want %v", got, want)
	}
	if !c.Done() {
		t.Error("not done after a pass")
	}
	if names := w.TxnNames(); fmt.Sprint(names) != "[q01 q14 q22]" {
		t.Errorf("TxnNames %v", names)
	}
}
