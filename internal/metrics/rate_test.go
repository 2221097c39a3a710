package metrics

import "testing"

func TestTPMAndNOPM(t *testing.T) {
	tests := []struct {
		name    string
		count   int64
		seconds float64
		want    float64
		wantErr error
	}{
		// One minute of Matos and Pedreira's (2025) best MariaDB run
		// (Table 2, Max CPU: 121708 TPM, 52446 NOPM on average).
		{"one minute", 121708, 60, 121708, nil},
		{"half minute", 1000, 30, 2000, nil},
		{"ten minutes", 524466, 600, 52446.6, nil},
		{"none", 0, 10, 0, nil},
		{"negative count", -1, 60, 0, ErrNegative},
		{"zero seconds", 10, 0, 0, ErrNotPositive},
		{"negative seconds", 10, -60, 0, ErrNotPositive},
		{"infinite seconds", 10, inf, 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TPM(tc.count, tc.seconds)
			check(t, got, err, tc.want, 1e-9, tc.wantErr)
			got, err = NOPM(tc.count, tc.seconds)
			check(t, got, err, tc.want, 1e-9, tc.wantErr)
		})
	}
}
