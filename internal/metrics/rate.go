package metrics

import (
	"fmt"
	"math"
)

// TPM is HammerDB's transactions per minute (Matos and Pedreira 2025,
// section 1, "TPM"):
//
//	TPM = transactions × 60 / seconds
//
// HammerDB derives it from the database engine's count of commits and
// rollbacks, so transactions is commits + rollbacks over the measured
// interval (in PostgreSQL, the delta of pg_stat_database xact_commit +
// xact_rollback). Matos and Pedreira (2025) warn that TPM is engine-specific
// and not for comparing DBMSs; use NOPM for that. seconds must be greater
// than zero.
func TPM(transactions int64, seconds float64) (float64, error) {
	return perMinute("transactions", transactions, seconds)
}

// NOPM is HammerDB's new orders per minute (Matos and Pedreira 2025,
// section 1, "NOPM"):
//
//	NOPM = new orders × 60 / seconds
//
// newOrders is the number of committed TPC-C New-Order transactions in the
// measured interval. It measures what tpmC measures and, unlike TPM, is
// comparable across DBMSs. seconds must be greater than zero.
func NOPM(newOrders int64, seconds float64) (float64, error) {
	return perMinute("new orders", newOrders, seconds)
}

func perMinute(name string, count int64, seconds float64) (float64, error) {
	if count < 0 {
		return math.NaN(), fmt.Errorf("%w: %s = %d", ErrNegative, name, count)
	}
	if err := positive("seconds", seconds); err != nil {
		return math.NaN(), err
	}
	return float64(count) * 60 / seconds, nil
}
