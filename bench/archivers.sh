#!/usr/bin/env bash
# Archiver benchmarks (issue 23): results per second through each archiver (http to a local
# HTTP server, opensearch, rabbitmq, kafka: real engines started as the tests start them) and
# the outbox's drain rate with all four at once:
#   bench/archivers.sh [RESULTS]        default 5000 per archiver
# Needs the native probe built (nmprobe-responder) and rabbitmq-server installed; prints a
# Markdown table (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5000}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-archiver-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
./mvnw -q -B -o -pl service,tests test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" \
  -Dmdep.includeScope=test >&2
responder=${NMWS_RESPONDER_BIN:-native-probe/target/native/bin/nmprobe-responder}
java -Xmx1g -Dnmws.responder.bin="$responder" \
  -cp "tests/target/test-classes:service/target/classes:$(cat "$work/cp.txt")" \
  org.nmws.tests.ArchiverBench "$n" > "$work/bench.log" 2>&1 || { tail -50 "$work/bench.log" >&2; exit 1; }
grep '^|' "$work/bench.log"
