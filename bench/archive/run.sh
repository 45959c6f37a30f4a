#!/usr/bin/env bash
# Archive benchmarks, SQLite and PostgreSQL side by side in one run (issue 6):
#   bench/archive/run.sh [SUMMARY_ROWS]        default 10000000
# Starts a private PostgreSQL cluster (scripts/test-postgres.sh) unless NMWS_TEST_PG_URL names
# one, runs org.nmws.service.archive.ArchiveBench from the service's test classes and prints
# a Markdown table. Needs a few GB free under ${NMWS_BENCH_DIR:-/tmp}.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-bench.XXXXXX")
if [ -z "${NMWS_TEST_PG_URL:-}" ]; then
  trap 'scripts/test-postgres.sh stop "$work/pg"; rm -rf "$work"' EXIT
  NMWS_TEST_PG_URL=$(scripts/test-postgres.sh start "$work/pg")
else
  trap 'rm -rf "$work"' EXIT
fi
./mvnw -q -B -pl service test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test >&2
java -Xmx4g -cp "service/target/test-classes:service/target/classes:$(cat "$work/cp.txt")" \
  org.nmws.service.archive.ArchiveBench "$work/sqlite" "$NMWS_TEST_PG_URL" "$rows"
