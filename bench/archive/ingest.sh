#!/usr/bin/env bash
# Archive ingest of a 50-point mesh into one time-partitioned PostgreSQL (issue 24), through
# Archive.save by concurrent writers side by side with a binary COPY of the same rows, then
# retention by dropped windows against DELETE:
#   bench/archive/ingest.sh [RESULTS] [WRITERS] [DAY_ROWS]   default 20000 results, 8 writers,
#                                                          and a day of 3,900,000 summaries for retention
# Starts a private PostgreSQL cluster (scripts/test-postgres.sh) unless NMWS_TEST_PG_URL names
# one, runs org.nmws.service.archive.IngestBench from the service's test classes and prints a
# Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
results=${1:-20000}
day=${3:-3900000}
writers=${2:-8}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-ingest.XXXXXX")
if [ -z "${NMWS_TEST_PG_URL:-}" ]; then
  trap 'scripts/test-postgres.sh stop "$work/pg"; rm -rf "$work"' EXIT
  NMWS_TEST_PG_URL=$(scripts/test-postgres.sh start "$work/pg")
else
  trap 'rm -rf "$work"' EXIT
fi
./mvnw -q -B -pl service test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test >&2
java -Xmx6g -cp "service/target/test-classes:service/target/classes:$(cat "$work/cp.txt")" \
  org.nmws.service.archive.IngestBench "$NMWS_TEST_PG_URL" "$results" "$writers" "$day"
