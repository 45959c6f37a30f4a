#!/usr/bin/env bash
# Issue 24 item 3 from OpenSearch: DAYS (8) of a POINTS-point (10) full mesh's one-minute
# latency results, as nmws's opensearch archiver writes them, bulk-loaded into one real
# OpenSearch node (Maven Central's jars, as the tests start it), then nmws's reads of them: the
# grid, a path's day and week as a stored-results query, and esmond's hourly packet-loss-rate
# of a day as a cluster aggregation; p50 and p99 of 100 runs each, as a Markdown table.
#   bench/archive/opensearch.sh [POINTS] [DAYS]
# 10 points and 8 days are 1,036,800 documents (about 4 min here); 18 points and 30 days are
# 13,219,200, the issue's "about 13 million".
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-10}
days=${2:-8}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-osbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
./mvnw -q -B -pl tests test-compile dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test >&2
# the node's JVM: NMWS_OS_JVM (default a 2 GB heap and the full JIT, as a real node runs; the
# tests' node runs with 384 MB and the quick JIT)
java -Xmx2g -Dnmws.opensearch.jvm="${NMWS_OS_JVM:--Xms2g -Xmx2g}" -cp "tests/target/test-classes:$(cat "$work/cp.txt")" \
  org.nmws.tests.OpenSearchQueryBench "$points" "$days"
