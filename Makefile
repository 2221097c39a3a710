# The README's commands. `make test` is what CI runs.
.PHONY: test quickstart build bench scale

build:
	go build -o tenantbench ./cmd/tenantbench

quickstart:
	go run ./cmd/tenantbench run examples/quickstart.yaml

test:
	gofmt -l . | (! grep .) || (echo "gofmt needed on the files above" && false)
	go vet ./...
	go test -count=1 -timeout 20m ./...
# TPC-H answers against DuckDB: a module of its own (cgo, a 60 MB
# library kept out of tenantbench's build); about 25 s, 4 min cold.
	cd internal/workload/tpch/duckdbcheck && go vet . && go test -count=1 -timeout 10m .
	go test -count=1 -run '^$$' -fuzz FuzzParse -fuzztime 10s -fuzzminimizetime 1s ./internal/spec
# Building a plan from any spec must start nothing and create no file.
	go test -count=1 -run '^$$' -fuzz FuzzBuild -fuzztime 10s -fuzzminimizetime 1s ./internal/plan

# 1,000 tenants on this machine in the schema and database models and 100
# in the instance model (bench/scale/), one run after the other, or one
# model's with MODEL=schema|database|instance: not part of the test suite.
# Each run's results go to SCALE_OUT/<model>; the machine-wide lock keeps
# them from running beside a benchmark.
SCALE_OUT ?= /tmp/tenantbench-scale-$(shell date +%Y%m%d-%H%M%S)
MODEL ?= schema database instance
SCALE_SPEC_schema = bench/scale/schema-1000.yaml
SCALE_SPEC_database = bench/scale/database-1000.yaml
SCALE_SPEC_instance = bench/scale/instance-100.yaml
scale: build
	@set -e; for m in $(MODEL); do \
		case $$m in schema) f=$(SCALE_SPEC_schema);; database) f=$(SCALE_SPEC_database);; instance) f=$(SCALE_SPEC_instance);; \
		*) echo "make scale: MODEL=$$m: use schema, database or instance" >&2; exit 2;; esac; \
		flock /tmp/tenantbench-bench.lock ./tenantbench run $$f --out $(SCALE_OUT)/$$m; \
	done
