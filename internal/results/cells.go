package results

// Which of a run's figures were measured, for results.csv: a run that
// failed before its workload phase has no throughput, and one that failed
// in setup no ingest time. Such cells are left empty (docs/results.md);
// the readers take an empty cell as "none" (Table.Float, ResultRow.Extra).

// isAggregate says s is a row of AggregateRuns.
func (s *Summary) isAggregate() bool { return s.Repetition == AggregateRepetition }

// workloadMeasured says the workload's figures (throughput, latency,
// transactions, tpm, fairness) were measured: always for a successful
// run; for a failed one when a tenant got to measure; for a point's mean
// when a repetition succeeded.
func (s *Summary) workloadMeasured() bool {
	switch {
	case s.Status == StatusOK:
		return true
	case s.isAggregate():
		return s.meanOf > 0
	}
	return len(s.Tenant) > 0
}

// phaseMeasured says a tenant of s entered the phase, so its time was
// measured (a phase that failed part-way has its time up to the failure).
func (s *Summary) phaseMeasured(phase string) bool {
	switch {
	case s.Status == StatusOK:
		return true
	case s.isAggregate():
		return s.meanOf > 0
	}
	for _, p := range s.Phases {
		if p.Phase == phase {
			return true
		}
	}
	return false
}

// ifMeasured is cell when its figure was measured, else empty.
func ifMeasured(measured bool, cell string) string {
	if measured {
		return cell
	}
	return ""
}
