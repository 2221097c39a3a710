package tpch

import (
	"fmt"
	"strconv"
	"strings"
)

// Substitution parameters (clause 2.4.x.3), drawn as qgen draws them
// (varsub.c): query q draws from stream q of the Park-Miller generator,
// whose seed is the q-th value of the generator started at the stream's
// seed (qgen -r). Values are kept as qgen prints them, and bound as text
// parameters.

// queryParams are the parameters of the 22 queries of one stream; index q
// holds query q's, in the order of its template's :1, :2, ...
type queryParams [numQueries + 1][]string

// qgenParams draws every query's parameters for qgen seed seed at scale
// factor sf (clause 2.4.11.3's FRACTION depends on it).
func qgenParams(seed int64, sf float64) queryParams {
	var ps queryParams
	x := seed % rngM
	if x <= 0 {
		x += rngM - 1
	}
	for q := 1; q <= numQueries; q++ {
		x = x * rngA % rngM
		s := stream{cur: x}
		ps[q] = drawParams(q, &s, sf)
	}
	return ps
}

// qgen's date formats: a month or a year from 1900 + y.
func month(y, m int64) string { return fmt.Sprintf("19%02d-%02d-01", y, m) }
func year(y int64) string     { return fmt.Sprintf("19%02d-01-01", y) }

// pickWord is a member of d drawn from s.
func pickWord(d *dist, s *stream) string { return d.words[d.pick(s)] }

// brand is Brand#MN with M and N uniform in 1..5.
func brand(s *stream) string {
	m := s.unifInt(1, 5)
	n := s.unifInt(1, 5)
	return fmt.Sprintf("Brand#%d%d", m, n)
}

// permute shuffles a as qgen's permute does (a draw in i..n-1 for each i).
func permute(a []int64, s *stream) {
	for i := range a {
		j := s.unifInt(int64(i), int64(len(a)-1))
		a[i], a[j] = a[j], a[i]
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// drawParams draws query q's parameters from s (clause 2.4.q.3).
func drawParams(q int, s *stream, sf float64) []string {
	switch q {
	case 1: // DELTA 60..120
		return []string{itoa(s.unifInt(60, 120))}
	case 2: // SIZE 1..50, TYPE a syllable 3, REGION
		size := s.unifInt(1, 50)
		typ := pickWord(partTypes, s)
		typ = typ[strings.LastIndexByte(typ, ' ')+1:]
		return []string{itoa(size), typ, pickWord(regionsUniform, s)}
	case 3: // SEGMENT, DATE a day of March 1995
		seg := pickWord(segments, s)
		day := s.unifInt(0, 30)
		return []string{seg, dayString(1155 + day)}
	case 4: // DATE the first of a month, 1993-01 .. 1997-10
		t := s.unifInt(0, 57)
		return []string{month(93+t/12, t%12+1)}
	case 5: // REGION, DATE 1 January of 1993..1997
		r := pickWord(regionsUniform, s)
		return []string{r, year(s.unifInt(93, 97))}
	case 6: // DATE, DISCOUNT 0.02..0.09, QUANTITY 24..25
		y := s.unifInt(93, 97)
		d := s.unifInt(2, 9)
		n := s.unifInt(24, 25)
		return []string{year(y), fmt.Sprintf("0.%02d", d), itoa(n)}
	case 7: // NATION1, NATION2 distinct
		a := nationsUniform.pick(s)
		b := nationsUniform.pick(s)
		for b == a {
			b = nationsUniform.pick(s)
		}
		return []string{nations[a].name, nations[b].name}
	case 8: // NATION, its REGION, TYPE
		n := nationsUniform.pick(s)
		return []string{nations[n].name, regions[nations[n].region], pickWord(partTypes, s)}
	case 9: // COLOR
		return []string{pickWord(colors, s)}
	case 10: // DATE the first of a month, 1993-02 .. 1995-01
		t := s.unifInt(1, 24)
		return []string{month(93+t/12, t%12+1)}
	case 11: // NATION, FRACTION 0.0001 / SF
		return []string{pickWord(nationsUniform, s), fmt.Sprintf("%11.10f", 0.0001/sf)}
	case 12: // SHIPMODE1, SHIPMODE2 distinct, DATE
		a := shipModes.pick(s)
		b := shipModes.pick(s)
		for b == a {
			b = shipModes.pick(s)
		}
		return []string{shipModes.words[a], shipModes.words[b], year(s.unifInt(93, 97))}
	case 13: // WORD1, WORD2
		w1 := pickWord(q13Words1, s)
		return []string{w1, pickWord(q13Words2, s)}
	case 14: // DATE the first of a month, 1993-01 .. 1997-12
		t := s.unifInt(0, 59)
		return []string{month(93+t/12, t%12+1)}
	case 15: // DATE the first of a month, 1993-01 .. 1997-10
		t := s.unifInt(0, 57)
		return []string{month(93+t/12, t%12+1)}
	case 16: // BRAND, TYPE syllables 1 and 2, SIZE1..8 distinct of 1..50
		b := brand(s)
		typ := pickWord(partTypes, s)
		typ = typ[:strings.LastIndexByte(typ, ' ')]
		sizes := make([]int64, 50)
		for i := range sizes {
			sizes[i] = int64(i + 1)
		}
		permute(sizes, s)
		out := []string{b, typ}
		for _, v := range sizes[:8] {
			out = append(out, itoa(v))
		}
		return out
	case 17: // BRAND, CONTAINER
		b := brand(s)
		return []string{b, pickWord(containers, s)}
	case 18: // QUANTITY 312..315
		return []string{itoa(s.unifInt(312, 315))}
	case 19: // BRAND1..3, QUANTITY1 1..10, QUANTITY2 10..20, QUANTITY3 20..30
		b1, b2, b3 := brand(s), brand(s), brand(s)
		q1 := s.unifInt(1, 10)
		q2 := s.unifInt(10, 20)
		q3 := s.unifInt(20, 30)
		return []string{b1, b2, b3, itoa(q1), itoa(q2), itoa(q3)}
	case 20: // COLOR, DATE, NATION
		c := pickWord(colors, s)
		y := s.unifInt(93, 97)
		return []string{c, year(y), pickWord(nationsUniform, s)}
	case 21: // NATION
		return []string{pickWord(nationsUniform, s)}
	case 22: // I1..I7 distinct country codes 10..34
		codes := make([]int64, numNations)
		for i := range codes {
			codes[i] = int64(i)
		}
		permute(codes, s)
		out := make([]string, 7)
		for i := range out {
			out[i] = itoa(10 + codes[i])
		}
		return out
	}
	return nil
}
