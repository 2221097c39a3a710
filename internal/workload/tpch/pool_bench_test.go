package tpch

import "testing"

func BenchmarkTextPool(b *testing.B) {
	for range b.N {
		p := buildPool(textPoolSize)
		if len(p) != textPoolSize {
			b.Fatal(len(p))
		}
	}
}

// BenchmarkLineitemRows generates and encodes lineitem rows of SF 1 (the
// pool built before the timer starts).
func BenchmarkLineitemRows(b *testing.B) {
	textPool()
	z, _ := sizesAt(1)
	g := newOrderGen(z)
	buf := make([]byte, 0, 4096)
	lines := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := g.gen(int64(i%int(z.orders)) + 1)
		lines += len(r.lines)
		buf = encodeLines(buf[:0], r, false)
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}
