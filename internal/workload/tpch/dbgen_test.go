package tpch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestAgainstDbgenDir compares every table with dbgen's own output when
// TPCH_DBGEN_DIR names a directory of dbgen's .tbl files and
// TPCH_DBGEN_SF its scale factor (development aid; the hashes in
// TestDbgenHashes keep the result).
func TestAgainstDbgenDir(t *testing.T) {
	dir, sfText := os.Getenv("TPCH_DBGEN_DIR"), os.Getenv("TPCH_DBGEN_SF")
	if dir == "" || sfText == "" {
		t.Skip("TPCH_DBGEN_DIR and TPCH_DBGEN_SF not set")
	}
	sf := mustFloat(t, sfText)
	z, err := sizesAt(sf)
	if err != nil {
		t.Fatal(err)
	}
	got := tblTables(z)
	for name, data := range got {
		want, err := os.ReadFile(filepath.Join(dir, name+".tbl"))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(data, want) {
			continue
		}
		gl, wl := bytes.Split(data, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Errorf("%s line %d:\n got %s\nwant %s", name, i+1, gl[i], wl[i])
				break
			}
		}
		if len(gl) != len(wl) {
			t.Errorf("%s: %d lines, want %d", name, len(gl)-1, len(wl)-1)
		}
	}
}
