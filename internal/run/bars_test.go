package run

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestBarsCount: up to 10 tenants get a line each as their ingest ends;
// more get a line every tenth of them, and the last count at the end.
func TestBarsCount(t *testing.T) {
	var out bytes.Buffer
	b := newBars(&out, false, 2)
	b.Add("t01", 10)
	b.Done("t01", nil)
	b.Wait()
	if out.String() != "  t01 ingest done\n" {
		t.Errorf("2 tenants: %q", out.String())
	}
	out.Reset()
	b = newBars(&out, true, 25) // no bars on a terminal either
	for i := range 25 {
		b.Add(fmt.Sprintf("t%02d", i+1), 10)
	}
	for i := range 25 {
		var err error
		if i == 3 {
			err = errors.New("boom")
		}
		b.Done(fmt.Sprintf("t%02d", i+1), err)
	}
	b.Wait()
	want := []string{"2 of 25 tenants ingested", "4 of 25 tenants ingested, 1 failed", "24 of 25 tenants ingested, 1 failed",
		"25 of 25 tenants ingested, 1 failed"}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != 13 || strings.TrimSpace(got[0]) != want[0] || strings.TrimSpace(got[1]) != want[1] ||
		strings.TrimSpace(got[11]) != want[2] || strings.TrimSpace(got[12]) != want[3] {
		t.Errorf("25 tenants:\n%s", out.String())
	}
}
