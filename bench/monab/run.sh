#!/bin/sh
# run.sh OLD SHAPE [PAIRS] [WINDOW]: the monitor's CPU at SHAPE
# (100-servers or 1000-tenants, idle sessions), this tree's monitor against
# OLD's (a git revision), alternated old-new, new-old... in windows of
# WINDOW (default 45s), PAIRS pairs (default 3), after one setup. Prints each
# window (the test process's CPU, the monitor's backends' run time) and the
# medians. Run it under flock /tmp/tenantbench-bench.lock.
set -e
OLD=${1:?old revision}
SHAPE=${2:?100-servers or 1000-tenants}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
top=$(git rev-parse --show-toplevel)
cd "$top"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$T"
mkdir -p "$T/old" "$T/internal/monitorold"
git archive "$OLD" internal/monitor | tar -xf - -C "$T/old"
cp "$T"/old/internal/monitor/*.go "$T/internal/monitorold/"
rm -f "$T"/internal/monitorold/*_test.go
sed -i 's/^package monitor$/package monitorold/' "$T"/internal/monitorold/*.go
cd "$T"
go test -c -tags monab -o "$T/monab.test" ./bench/monab
AB_SHAPE=$SHAPE AB_PAIRS=${3:-3} AB_WINDOW=${4:-45s} "$T/monab.test" -test.run '^$' -test.bench BenchmarkAB -test.benchtime 1x
