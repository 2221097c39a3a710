package metrics

import "testing"

func TestMemoryFootprintPerTenant(t *testing.T) {
	const gb = 1024 // MB, as Oracle (2014) counts them
	tests := []struct {
		name               string
		background, shared float64
		tenants            int
		want, tol          float64
		wantErr            error
	}{
		// Oracle 2014, 252 databases: Table 4 (private memory of background
		// processes) plus Table 3 (SGA pools except buffer cache), divided
		// by 252, gives Table 2's "Memory Footprint per DB".
		{"Oracle 2014, Table 2 non-CDBs", 148.9 * gb, 270 * gb, 252, 1702, 0.5, nil},
		{"Oracle 2014, Table 2 PDBs", 2.3 * gb, 49 * gb, 252, 208, 0.5, nil},
		{"hand", 300, 100, 4, 100, 0, nil},
		{"nothing", 0, 0, 1, 0, 0, nil},
		{"no tenants", 300, 100, 0, 0, 0, ErrNotPositive},
		{"negative", -1, 100, 1, 0, 0, ErrNegative},
		{"NaN", 1, nan, 1, 0, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MemoryFootprintPerTenant(tc.background, tc.shared, tc.tenants)
			check(t, got, err, tc.want, tc.tol, tc.wantErr)
		})
	}
}

// TestMemoryFootprintSaving checks Oracle's (2014) "1.5 GB memory savings per
// database" (Test 2, Key Take-Aways) from the same tables.
func TestMemoryFootprintSaving(t *testing.T) {
	non, err := MemoryFootprintPerTenant(148.9, 270, 252)
	if err != nil {
		t.Fatal(err)
	}
	pdb, err := MemoryFootprintPerTenant(2.3, 49, 252)
	if err != nil {
		t.Fatal(err)
	}
	if s := non - pdb; s < 1.45 || s > 1.5 {
		t.Fatalf("saving per database %v GB, want about 1.5", s)
	}
}

func TestMarginalMemoryPerTenant(t *testing.T) {
	tests := []struct {
		name        string
		withN, base float64
		tenants     int
		want        float64
		wantErr     error
	}{
		{"hand", 1000, 400, 3, 200, nil},
		{"instance model: base zero", 900, 0, 3, 300, nil},
		{"noise", 390, 400, 2, -5, nil},
		{"no tenants", 1000, 400, 0, 0, ErrNotPositive},
		{"negative", -1000, 400, 3, 0, ErrNegative},
		{"infinite", inf, 400, 3, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MarginalMemoryPerTenant(tc.withN, tc.base, tc.tenants)
			check(t, got, err, tc.want, 1e-12, tc.wantErr)
		})
	}
}
