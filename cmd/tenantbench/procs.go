package main

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/driver"
)

// driverProcs is the --procs flag's value as GOMAXPROCS: 0 (the default)
// is half the CPUs; a negative count is refused as bad input before
// anything starts, where it used to fall back to the default unsaid.
func driverProcs(n int) (int, error) {
	if n < 0 {
		return 0, badInput{fmt.Errorf("--procs %d: must be 1 or more OS threads for the driver, or 0 for the default (half the CPUs, at least 1)", n)}
	}
	if n == 0 {
		return driver.DefaultProcs(), nil
	}
	return n, nil
}
