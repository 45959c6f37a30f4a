#!/usr/bin/env bash
# Runs every test: C unit tests (ctest), Java unit tests, the end-to-end tests against the
# real service and responder. Installs what the tests need first when run as root on a
# fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  # build tools; the namespace lab (iproute2, nftables, iptables, libnetfilter-queue for the delay line)
  pkgs="cmake gcc make curl iproute2 nftables iptables libnetfilter-queue-dev libnfnetlink-dev util-linux iperf3"
  # OpenSSL's libcrypto: HMAC-SHA256 for authenticated responder sessions
  pkgs="$pkgs libssl-dev"
  # clang for the libFuzzer run of the control-protocol parser (its runtime below)
  pkgs="$pkgs clang"
  # the PostgreSQL server the archive tests run against (a private cluster, started below)
  pkgs="$pkgs postgresql"
  # the interoperability tests' independent clients: Python (xmlrpc.client, zeep) and curl
  pkgs="$pkgs python3 python3-pip"
  # linuxptp: ptp4l and pmc, for the PTP clock lab (one-way delays' uncertainty)
  pkgs="$pkgs linuxptp"
  # the dashboard test (tests/.../DashboardEndToEndTest) drives a real browser: Debian's chromium and its chromedriver
  pkgs="$pkgs chromium chromium-driver"
  # tshark: Wireshark's TWAMP-Control / TWAMP-Test / OWAMP-Test dissectors read nmws's OWAMP and
  # TWAMP packets in the ctest owamp_twamp_packets_decoded_by_wireshark (fails without it)
  pkgs="$pkgs tshark"
  # tshark's package asks whether non-root users may capture: answer it before apt does
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  # the archiver tests' RabbitMQ broker (tests/.../RabbitMqEngine starts a private node of it)
  pkgs="$pkgs rabbitmq-server"
  missing=""
  for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
  fi
  # clang's runtime (libFuzzer, sanitizers) is packaged per clang version: ask clang which.
  rt="libclang-rt-$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)-dev"
  dpkg -s "$rt" >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$rt"
fi

# zeep for tests/.../InteropTest (which fails, never skips, without it): Debian's package
# serves /usr/bin/python3; a python3 of its own (pyenv, venv) gets it from PyPI.
if ! python3 -c 'import zeep' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-zeep || true
  fi
  python3 -c 'import zeep' 2>/dev/null || python3 -m pip install -q zeep \
    || python3 -m pip install -q --break-system-packages zeep
fi

# scapy's STAMP layer (2.6 and later; Debian 12 packages 2.5) decodes nmws's STAMP packets in
# the native-probe ctest stamp_packets_decoded_by_scapy, which fails, never skips, without it.
if ! python3 -c 'import scapy.contrib.stamp' 2>/dev/null; then
  python3 -m pip install -q 'scapy>=2.6' || python3 -m pip install -q --break-system-packages 'scapy>=2.6'
fi

# The archive tests need a real PostgreSQL: start a private cluster unless one was handed in.
# A missing server makes those tests fail, never skip (nmws.test.postgres=skip is for local runs only).
if [ -z "${NMWS_TEST_PG_URL:-}" ]; then
  pgdir=$(mktemp -d /tmp/nmws-test-pg.XXXXXX)
  trap 'scripts/test-postgres.sh stop "$pgdir"; rm -rf "$pgdir"' EXIT
  NMWS_TEST_PG_URL=$(scripts/test-postgres.sh start "$pgdir")
  export NMWS_TEST_PG_URL
fi

# twamp-rs, the independent TWAMP implementation the native-probe ctest
# twamp_against_twamp_rs_both_ways measures with both ways (it fails, never skips, without it):
# built from the Rust package registry into the cache once (about 25 s), a no-op after that. It
# needs cargo 1.85 or later, rustup's (the machine image has it in /root/.cargo; Debian 12's
# cargo package is too old and rustup's installer is not a package registry's).
NMWS_TWAMP_RS_DIR=$(scripts/peer-twamp-rs.sh)
export NMWS_TWAMP_RS_DIR

./mvnw -B -ntp install "$@"

# tutorial-mesh.sh's wait for every pair's first result, against a fake service (seconds).
scripts/test-mesh-pairs.sh

# The tutorial's mesh (docs/tutorial.md) as written: three points in namespaces, their
# schedules' first results, the tutorial's commands and the dashboard's pictures, each checked
# (issue 26); shorter waits than a reader's, pictures into a scratch directory. Needs root.
if [ "$(id -u)" = 0 ]; then
  tut=$(mktemp -d /tmp/nmws-tutorial.XXXXXX)
  CHECK=1 WAIT_S=30 SETTLE_S=150 IMAGES_DIR="$tut" NS_PREFIX=nmwsci- SUBNET=10.251.0 scripts/tutorial-mesh.sh
  rm -rf "$tut"
fi

# The Debian package the build made: installed with apt, run from its installed layout (one
# real round trip through the installed CLI), removed. Needs root and apt, as a CI runner has.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  scripts/test-package.sh
fi

# Runs two commands side by side, one a core (LOG1 CMD1 LOG2 CMD2; a command is split on spaces),
# each's output to its log; prints each log's last lines, and a failure shows its log's tail and
# fails the run (set -e does not see a background job: its status is waited for).
side_by_side() {
  $2 > "$1" 2>&1 & local p1=$!
  $4 > "$3" 2>&1 & local p2=$!
  local r1=0 r2=0
  wait $p1 || r1=$?
  wait $p2 || r2=$?
  tail -3 "$1"; tail -3 "$3"
  [ $r1 = 0 ] || { tail -60 "$1"; exit $r1; }
  [ $r2 = 0 ] || { tail -60 "$3"; exit $r2; }
}

# The C unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer (a JVM cannot
# load an ASan library, so this is a build of its own), then a short libFuzzer run of the
# control-protocol parser (the responder parses what any peer sends it) and of the packed-spec
# decoder (the JNI entry's input).
san=native-probe/target/sanitize
cmake -S native-probe -B "$san" -DNMP_SANITIZE=ON -DNMP_JNI=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$san" -j2 >/dev/null
# Left out there: the lab (its truth is the normal build's), Wireshark's reading of the same
# bytes (label peer), and the fairness test (label timing: who is served when, slower under ASan; the
# session paths it takes are the late-sender test's, which stays).
NMP_SKIP_LAB=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
  ctest --test-dir "$san" --output-on-failure -j2 -LE 'peer|timing'

if command -v clang >/dev/null; then
  fuzz=native-probe/target/fuzz
  cmake -S native-probe -B "$fuzz" -DCMAKE_C_COMPILER=clang -DNMP_FUZZ=ON -DNMP_JNI=OFF >/dev/null
  cmake --build "$fuzz" -j2 --target fuzz_ctl fuzz_spec fuzz_owctl fuzz_stamp >/dev/null
  # packed specs (fuzz_spec): what the JNI entry decodes for every kind. Each starts from the seed
  # corpus in the repository (real control lines, a packed spec per kind) and writes what it
  # finds new into a corpus of its own under $fuzz, the first directory (the seeds stay as they are)
  mkdir -p "$fuzz/corpus/fuzz_ctl" "$fuzz/corpus/fuzz_spec"
  seeds=native-probe/test/fuzz-corpus
  side_by_side "$fuzz/fuzz_ctl.log" "$fuzz/fuzz_ctl -max_total_time=${NMWS_FUZZ_SECONDS:-20} -max_len=600 -print_final_stats=1 $fuzz/corpus/fuzz_ctl $seeds/fuzz_ctl" \
               "$fuzz/fuzz_spec.log" "$fuzz/fuzz_spec -max_total_time=${NMWS_FUZZ_SECONDS:-20} -max_len=4096 -print_final_stats=1 $fuzz/corpus/fuzz_spec $seeds/fuzz_spec"
  # OWAMP / TWAMP control messages and test packets (nmprobe-owampd parses what any peer sends),
  # and STAMP test packets of both modes with the pfs key file parser (what any sender hands the
  # reflector): side by side, half the time each
  mkdir -p "$fuzz/corpus/fuzz_owctl" "$fuzz/corpus/fuzz_stamp"
  half=$(( ${NMWS_FUZZ_SECONDS:-20} / 2 ))
  side_by_side "$fuzz/fuzz_owctl.log" "$fuzz/fuzz_owctl -max_total_time=$half -max_len=2048 -print_final_stats=1 $fuzz/corpus/fuzz_owctl $seeds/fuzz_owctl" \
               "$fuzz/fuzz_stamp.log" "$fuzz/fuzz_stamp -max_total_time=$half -max_len=9100 -print_final_stats=1 $fuzz/corpus/fuzz_stamp $seeds/fuzz_stamp"
fi

# Jazzer over the Java codecs that read client input (NMWG, XML-RPC, numbers and times) and the
# archive's frame chunks: each target fuzzed for a bounded time (the unit-test run above only
# replays their seeds). A finding fails the run and leaves its input under service/.
# Jazzer fuzzes one target a JVM, so two run side by side (one a core), straight from the
# compiled classes (surefire:test, no lifecycle); each's output is kept and shown on failure.
# Each target runs the maxDuration its @FuzzTest states (NMWS_FUZZ_SECONDS is libFuzzer's only:
# a -Djazzer.max_duration on Maven's command line does not override the annotation).
jazzer() {
  JAZZER_FUZZ=1 ./mvnw -B -ntp -q -o -pl service surefire:test -Dtest="CodecFuzzTest#$1" \
    -Dsurefire.failIfNoSpecifiedTests=false
}
side_by_side service/target/jazzer-nmwgMessages.log "jazzer nmwgMessages" \
             service/target/jazzer-xmlRpcCalls.log "jazzer xmlRpcCalls"
side_by_side service/target/jazzer-parametersAndTimes.log "jazzer parametersAndTimes" \
             service/target/jazzer-storedFrameChunks.log "jazzer storedFrameChunks"
