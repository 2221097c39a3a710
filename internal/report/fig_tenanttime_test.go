package report

import "testing"

// TestMovingMean: each second is the mean of the seconds around it, fewer
// at the ends.
func TestMovingMean(t *testing.T) {
	got := movingMean([]float64{0, 10, 20, 30, 40}, 3)
	want := []float64{5, 10, 20, 30, 35}
	for i, xy := range got {
		if xy.Y != want[i] || xy.X != float64(i)+0.5 {
			t.Errorf("second %d: %v, want (%v, %v)", i, xy, float64(i)+0.5, want[i])
		}
	}
}
