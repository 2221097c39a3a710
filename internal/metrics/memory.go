package metrics

import "math"

// MemoryFootprintPerTenant is the memory footprint per database of Oracle 2014
// (Test 2, Table 2, column "Memory Footprint per DB", and its footnote 6:
// "The memory footprint of a database includes all private memory of
// background processes as well as shared memory for all SGA pools except
// buffer cache"):
//
//	footprint = (private memory of background processes
//	             + shared memory except the buffer cache) / N
//
// summed over every instance that serves the N tenants (one shared instance
// in the schema and database models, N instances in the instance model).
// The buffer cache is left out because it is sized by configuration, not by
// the number of tenants; connection (foreground) processes are left out
// because they scale with clients, not tenants. Oracle's (2014) own figures
// (Tables 3 and 4, 252 databases): (270 GB + 148.9 GB) / 252 = 1702 MB for
// non-CDBs and (49 GB + 2.3 GB) / 252 = 208 MB for PDBs (1 GB = 1024 MB).
//
// For PostgreSQL: backgroundPrivate is the private memory (smaps
// Private_Clean + Private_Dirty) summed over the background processes
// (postmaster, checkpointer, background writer, WAL writer, autovacuum
// launcher, ...); sharedExceptBufferCache is the shared memory segment
// without shared_buffers (pg_shmem_allocations without "Buffer Blocks").
// The result is in the inputs' unit. Both inputs must be non-negative and
// tenants at least 1.
func MemoryFootprintPerTenant(backgroundPrivate, sharedExceptBufferCache float64, tenants int) (float64, error) {
	if err := nonNegative("background private memory", backgroundPrivate); err != nil {
		return math.NaN(), err
	}
	if err := nonNegative("shared memory except buffer cache", sharedExceptBufferCache); err != nil {
		return math.NaN(), err
	}
	if err := positiveInt("tenants", tenants); err != nil {
		return math.NaN(), err
	}
	return (backgroundPrivate + sharedExceptBufferCache) / float64(tenants), nil
}

// MarginalMemoryPerTenant is the memory a tenant adds, measured from the
// outside:
//
//	marginal = (memory with N tenants - memory with no tenant) / N
//
// This is not Oracle's (2014) definition (see MemoryFootprintPerTenant) but the
// figure that can be measured for any deployment by its total memory alone:
// memWithTenants is the memory of the system under test serving the N
// tenants, memBase that of the same deployment before any tenant was set up
// (an empty instance; for the instance model, zero). It includes the buffer
// cache the tenants' data fills. The result is in the inputs' unit and may
// be negative when measurement noise exceeds the difference. Both memories
// must be non-negative and tenants at least 1.
func MarginalMemoryPerTenant(memWithTenants, memBase float64, tenants int) (float64, error) {
	if err := nonNegative("memory with tenants", memWithTenants); err != nil {
		return math.NaN(), err
	}
	if err := nonNegative("base memory", memBase); err != nil {
		return math.NaN(), err
	}
	if err := positiveInt("tenants", tenants); err != nil {
		return math.NaN(), err
	}
	return (memWithTenants - memBase) / float64(tenants), nil
}
