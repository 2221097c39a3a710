package results

import "testing"

// TestCPUSharesWhole: a server measured whole (a pod, by its kubelet)
// has its share of the host's CPU and no background or foreground share,
// and the run, whose split would then cover some servers only, has
// none either: empty, never zero.
func TestCPUSharesWhole(t *testing.T) {
	sum := &Summary{Instances: []Instance{{Name: "a"}, {Name: "b"}}}
	cpuShares(sum, []CPUSplit{{Instance: "a", Background: 1, Foreground: 3, Total: 5}, {Instance: "b", Total: 5, Whole: true}}, 2, 10)
	a, b, p := sum.Instances[0], sum.Instances[1], sum.Provider
	if a.CPUPct == nil || *a.CPUPct != 25 || a.CPUBackgroundPct == nil || *a.CPUBackgroundPct != 5 {
		t.Errorf("instance a: %+v", a)
	}
	if b.CPUPct == nil || *b.CPUPct != 25 || b.CPUBackgroundPct != nil || b.CPUForegroundPct != nil {
		t.Errorf("instance b (whole): %+v", b)
	}
	if p.CPUServersPct == nil || *p.CPUServersPct != 50 || p.CPUBackgroundPct != nil || p.CPUForegroundPct != nil {
		t.Errorf("the run: servers %v, background %v, foreground %v", p.CPUServersPct, p.CPUBackgroundPct, p.CPUForegroundPct)
	}
}
