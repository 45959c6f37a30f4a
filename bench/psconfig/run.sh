#!/usr/bin/env bash
# A point's share of a national-size pSConfig template (issue 24 item 3): read, plan, apply as
# schedules, plan their slots; p50 and max of each and the heap held. Prints a Markdown table.
#   bench/psconfig/run.sh [ROUNDS]     default 20
# Runs org.nmws.service.psconfig.PsConfigScaleBench from the service's test classes on a SQLite
# archive under ${NMWS_BENCH_DIR:-/tmp}.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-20}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-psconfig.XXXXXX")
trap 'rm -rf "$work"' EXIT
./mvnw -q -B -o -pl service test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test >&2
java -Xmx1g -cp "service/target/test-classes:service/target/classes:$(cat "$work/cp.txt")" \
  org.nmws.service.psconfig.PsConfigScaleBench "$work" "$rounds"
