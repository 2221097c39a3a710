package spec

import (
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/metrics"
)

// defaults is the spec a file starts from: every key it does not write, or
// writes as null ("key:" with nothing after it), keeps the value here.
// docs/spec.md lists the same values; keep them in step.
//
// name has no default here: Load takes it from the file name, Parse
// requires it. workload.name has none either: the workload registry checks
// it against the workloads it knows.
func defaults() *Spec {
	return &Spec{
		Seed:     1,
		Repeat:   1,
		Progress: Duration(5 * time.Second),
		Cost: Cost{
			CPUVCoreHour: metrics.DefaultPrices().CPUPerVCoreHour,
			MemoryGBHour: metrics.DefaultPrices().MemoryPerGBHour,
		},
		SUT: SUT{
			Engine:      Strings{"postgres"},
			Provider:    "local",
			Version:     "", // the newest the provider finds
			Transport:   "tcp",
			Storage:     Storage{Kind: Strings{StorageDisk}, Volume: Strings{VolumeShared}},
			Resources:   Resources{CPUPolicy: Strings{CPUPolicyNone}},
			Replicas:    Ints{0},
			Replication: ReplicationAsync,
		},
		Tenancy: Tenancy{
			Model:   Strings{"schema"},
			Tenants: Ints{1},
		},
		Workload: Workload{
			Scale:    Floats{1},
			Clients:  Ints{1},
			Duration: Duration(60 * time.Second),
			Warmup:   0,
			// Clone where the model can (database, instance), load
			// elsewhere: see Provision.
			Provision: ProvisionClone,
			Reads:     ReadsPrimary,
			Load:      LoadShape{Shape: load.DefaultShape().Name()},
		},
	}
}
