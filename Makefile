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

# 1,000 tenants on this machine in the schema model (bench/scale/): a
# smoke of what breaks at that count, not part of the test suite. Its
# results go to SCALE_OUT; the machine-wide lock keeps it from running
# beside a benchmark.
SCALE_OUT ?= /tmp/tenantbench-scale-$(shell date +%Y%m%d-%H%M%S)
scale: build
	flock /tmp/tenantbench-bench.lock ./tenantbench run bench/scale/schema-1000.yaml --out $(SCALE_OUT)
