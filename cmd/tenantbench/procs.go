package main

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/driver"
)

// procsUsage is --procs's help.
const procsUsage = "OS threads for the driver (GOMAXPROCS); default half the CPUs, at least 1, " +
	"but one per CPU (up to the clients) in a workload phase whose closed loop without think time runs on event loops"

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
