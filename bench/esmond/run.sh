#!/usr/bin/env bash
# esmond queries over a day of one-minute latency results (issue 23): p50 and p99 of each.
#   bench/esmond/run.sh [ROUNDS]     default 50
# Runs org.nmws.service.perfsonar.EsmondBench from the service's test classes on a SQLite
# archive under ${NMWS_BENCH_DIR:-/tmp} and prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-50}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-esmond.XXXXXX")
trap 'rm -rf "$work"' EXIT
./mvnw -q -B -o -pl service test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test >&2
java -Xmx1g -cp "service/target/test-classes:service/target/classes:$(cat "$work/cp.txt")" \
  org.nmws.service.perfsonar.EsmondBench "$work" "$rounds"
