// Package metrics holds the formulas of the papers tenantbench follows as
// pure functions: no I/O, no database, no state. Each function's doc comment
// gives its formula and its source (paper, section, equation or table), and
// docs/metrics.md lists every metric with its units and its results column.
//
// The papers are cited by author and year; docs/references.md has them in
// full:
//
//   - Erdelt and Rabl 2026: "Benchmarking Multi-Tenant Architectures in
//     PostgreSQL" (EDBT '26).
//   - Matos and Pedreira 2025: automated HammerDB TPROC-C pipeline,
//     PostgreSQL vs MariaDB.
//   - Oracle 2014: white paper, Oracle Multitenant on SuperCluster T5-8.
//   - Zhang et al. 2025: CloudyBench, a testbed for cloud-native
//     databases.
//   - Jain et al. 1984: the fairness index.
//
// # Errors and NaN
//
// Two kinds of "no value" are kept apart:
//
//   - Invalid input returns a non-nil error wrapping one of the sentinel
//     errors below (ErrEmpty, ErrNegative, ErrNotPositive, ErrNotFinite,
//     ErrLength, ErrDirection) and a NaN value. Invalid input means something
//     upstream went wrong: no tenants, a zero duration, a negative count.
//   - Valid input for which the formula has no value (0/0: the standard
//     deviation of one repetition, the coefficient of variation of values
//     whose mean is zero, Jain's index of tenants that all did nothing)
//     returns NaN and a nil error. A report writes such a value as empty.
//
// No function panics, and no function modifies the slices it is given.
package metrics

import "errors"

// Sentinel errors wrapped by the errors the functions return; test with
// errors.Is.
var (
	// ErrEmpty: a slice that must hold at least one value is empty.
	ErrEmpty = errors.New("metrics: no values")
	// ErrNegative: a value that cannot be negative is.
	ErrNegative = errors.New("metrics: negative value")
	// ErrNotPositive: a value that must be greater than zero (a duration, a
	// divisor, a count of streams) is zero or negative.
	ErrNotPositive = errors.New("metrics: value must be greater than zero")
	// ErrNotFinite: a value is NaN or infinite.
	ErrNotFinite = errors.New("metrics: value is NaN or infinite")
	// ErrLength: two slices that must pair up differ in length.
	ErrLength = errors.New("metrics: slices differ in length")
	// ErrDirection: a Direction is neither HigherIsBetter nor LowerIsBetter.
	ErrDirection = errors.New("metrics: unknown direction")
)
