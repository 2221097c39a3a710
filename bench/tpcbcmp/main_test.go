package main

import (
	"slices"
	"testing"
)

// TestProcsList: -procs takes one count or a list, and refuses what
// GOMAXPROCS cannot be.
func TestProcsList(t *testing.T) {
	for in, want := range map[string][]int{"1": {1}, "1,2": {1, 2}, " 2 , 1": {2, 1}} {
		got, err := procsList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("procsList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "1,", "x", "-1"} {
		if got, err := procsList(in); err == nil {
			t.Errorf("procsList(%q) = %v, want an error", in, got)
		}
	}
}
