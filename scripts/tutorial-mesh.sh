#!/usr/bin/env bash
# The mesh of docs/tutorial.md on one machine: three hosts (network namespaces a, b and c on
# one bridge, the link to c slower and lossy), a responder and a service in each,
# the tutorial's mesh file, then the dashboard's screenshots into docs/images/ and the
# answers the tutorial shows. Needs root (namespaces), a build (scripts/start.sh or
# ./mvnw install) and, for the screenshots, chromium. Everything it made is removed at exit.
#
#   sudo scripts/tutorial-mesh.sh            # runs, screenshots, cleans up
#   sudo KEEP=1 scripts/tutorial-mesh.sh     # leaves the mesh running (then: scripts/tutorial-mesh.sh clean)
#
# After WAIT_S (150) seconds it waits at most SETTLE_S (180) more for every schedule's first
# result, then names the pairs still without one (and why their last run failed) and exits 1
# after taking what answers and pictures it can. IMAGES_DIR (docs/images) takes the pictures;
# with CHECK=1 (CI: scripts/test.sh) a picture not made, or an answer that is not one, fails it.
# MESH_JSON=FILE runs that mesh file instead of the tutorial's (its $net.N addresses written
# as NET.N), and SHOTS=0 skips the answers and pictures (bench/soak.sh does both).
# RESPONDER_SESSIONS (4) is each responder's --sessions and each service's
# nmws.limits.shared-tests-per-path: light tests (round trips, one-way delay) share a path and a
# far responder; throughput runs alone. 1: one test at a time, as before.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
p=${NS_PREFIX:-nmws-}                 # namespace names: ${p}a, ${p}b, ${p}c and ${p}lan
net=${SUBNET:-10.250.0}               # the hosts are $net.1, .2, .3
wait_s=${WAIT_S:-150}                 # how long the schedules run before the screenshots
settle_s=${SETTLE_S:-180}             # then at most this long more for every schedule's first result
images=${IMAGES_DIR:-docs/images}     # where the dashboard's pictures go
run="$top/run/tutorial"
hosts=(a b c)

clean() {
  for h in "${hosts[@]}"; do
    for f in "$run/$h".*.pid; do
      [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
  done
  sleep 1
  for h in "${hosts[@]}" lan; do ip netns del "$p$h" 2>/dev/null || true; done
}
if [ "${1:-}" = clean ]; then clean; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "needs root: it makes network namespaces" >&2; exit 1; }
jar=$(ls service/target/nmws-service-*-exec.jar)
cli=$(ls client/target/nmws-client-*-exec.jar)
responder=native-probe/target/native/bin/nmprobe-responder
[ -x "$responder" ] || { echo "build first: ./mvnw -DskipTests install" >&2; exit 1; }
[ -z "${KEEP:-}" ] && trap clean EXIT
mkdir -p "$run"

# --- the network: a bridge in its own namespace, a veth from each host to it -----------------
. scripts/netns-bridge.sh
bridge_hosts "$p" "$net" "${hosts[@]}"
# Something for the plots to show: the link to c runs at 50 Mbit/s (tbf on the bridge's port
# towards c) and c drops one UDP datagram in 200 (nftables in c's namespace only).
ip netns exec "${p}lan" tc qdisc add dev to-c root tbf rate 50mbit burst 64kb latency 20ms
ip netns exec "${p}c" nft -f - <<'NFT'
table inet impair {
  chain in { type filter hook input priority 0; meta l4proto udp numgen random mod 200 == 0 drop; }
}
NFT

# --- the mesh file every point loads -----------------------------------------------------------
if [ -n "${MESH_JSON:-}" ]; then
  sed "s/NET\./$net./g" "$MESH_JSON" >"$run/mesh.json"
else
cat >"$run/mesh.json" <<EOF
{
  "points": [
    {"name": "a", "url": "http://$net.1:8080", "address": "$net.1"},
    {"name": "b", "url": "http://$net.2:8080", "address": "$net.2"},
    {"name": "c", "url": "http://$net.3:8080", "address": "$net.3"}
  ],
  "groups": [
    {"name": "latency", "characteristic": "path.delay.roundTrip", "period": "PT30S", "slip": "PT5S",
     "parameters": {"count": "20", "interval": "0.05"}},
    {"name": "owd", "characteristic": "path.delay.oneWay", "period": "PT30S", "slip": "PT5S",
     "parameters": {"count": "500", "interval": "0.01", "packetSize": "1000"}},
    {"name": "throughput", "characteristic": "path.bandwidth.achievable.TCP", "period": "PT1M", "slip": "PT10S",
     "parameters": {"timeDuration": "3"}, "pairs": [["a", "b"], ["a", "c"]]}
  ]
}
EOF
fi

# --- a responder and a service on each host ------------------------------------------------------
for h in "${hosts[@]}"; do
  mkdir -p "$run/$h.data"
  ip netns exec "$p$h" "$responder" -p 8700 --sessions "${RESPONDER_SESSIONS:-4}" >"$run/$h.responder.log" 2>&1 &
  echo $! >"$run/$h.responder.pid"
  ip netns exec "$p$h" java -Xmx256m -jar "$jar" --server.port=8080 --nmws.data-dir="$run/$h.data" \
    --nmws.measurement-point="$h" --nmws.mesh.file="$run/mesh.json" \
    --nmws.limits.test-clients="127.0.0.0/8, ::1, $net.0/24" \
    --nmws.limits.shared-tests-per-path="${RESPONDER_SESSIONS:-4}" >"$run/$h.service.log" 2>&1 &
  echo $! >"$run/$h.service.pid"
done
for h in "${hosts[@]}"; do
  for _ in $(seq 1 240); do
    ip netns exec "$p$h" curl -fsS http://127.0.0.1:8080/actuator/health >/dev/null 2>&1 && break
    sleep 0.5
  done
  ip netns exec "$p$h" curl -fsS http://127.0.0.1:8080/actuator/health >/dev/null || {
    echo "service on $h did not start:" >&2; tail -30 "$run/$h.service.log" >&2; exit 1; }
done
echo "mesh up; letting the schedules run ${wait_s} s..." >&2
sleep "$wait_s"

# --- every pair's first result, waited for with a bound -------------------------------------------
# One line "NAME (characteristic src -> dst): why" per schedule of any point with no stored result
# yet, the last ended run's status and reason saying why; nothing when every pair has one.
missing_pairs() {
  for h in "${hosts[@]}"; do
    ip netns exec "$p$h" python3 "$top/scripts/mesh-pairs.py" "$h" http://127.0.0.1:8080
  done
}
deadline=$((SECONDS + settle_s))
while missing=$(missing_pairs) && [ -n "$missing" ] && [ "$SECONDS" -lt "$deadline" ]; do
  sleep 5
done
if [ -n "$missing" ]; then
  echo "after $((wait_s + settle_s)) s these pairs have no stored result (the pictures miss them):" >&2
  echo "$missing" | sed 's/^/  /' >&2
  echo "  the services' logs: $run/*.service.log, the responders': $run/*.responder.log" >&2
else
  echo "every pair has a result" >&2
fi

if [ "${SHOTS:-1}" = 0 ]; then
  [ -z "$missing" ]
  exit
fi

# --- what the tutorial shows ---------------------------------------------------------------------
in_a() { ip netns exec "${p}a" "$@"; }
nmws() { in_a java -jar "$top/$cli" "$@"; }
{
  echo '$ nmws schedule list'; nmws schedule list
  echo; echo '$ nmws schedule runs latency:a:c'; nmws schedule runs latency:a:c | head -6
  echo; echo "\$ nmws cost --dst $net.2 --dst $net.3 --bytes 1e9"; nmws cost --dst "$net.2" --dst "$net.3" --bytes 1e9
  echo; echo "\$ nmws rtt $net.3 --count 20 --interval 0.05"; nmws rtt "$net.3" --count 20 --interval 0.05
  echo; echo "\$ nmws --url http://$net.2:8080 rtt $net.3 --count 20   # b measures, asked from a"
  nmws --url "http://$net.2:8080" rtt "$net.3" --count 20
  echo; echo '$ curl -s http://127.0.0.1:8080/actuator/prometheus | grep -E "^nmws_(path_last|tests_total)" | head'
  in_a curl -s http://127.0.0.1:8080/actuator/prometheus | grep -E '^nmws_(path_last\{|tests_total)' | head -12
} >"$run/answers.txt" 2>&1 || true
echo "answers: $run/answers.txt" >&2

if command -v chromium >/dev/null; then
  mkdir -p "$images"
  images=$(cd "$images" && pwd)
  shot() { # shot NAME HASH: the dashboard view after its scripts have run
    in_a chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,"${3:-900}" \
      --virtual-time-budget=10000 --screenshot="$images/$1.png" "http://127.0.0.1:8080/dashboard/#$2" 2>/dev/null
  }
  # the latest one-way stream a measured to c, for the test view; none stored is said, not a crash
  id=$(in_a curl -fsS "http://127.0.0.1:8080/api/observations?test=UDP_STREAM&dst=$net.3&limit=100" \
    | python3 -c 'import json,sys; r=json.load(sys.stdin).get("results") or []; print(r[-1]["id"] if r else "")' || true)
  shot tutorial-mesh overview 700
  shot tutorial-path "path?dst=$net.3" 1500
  if [ -n "$id" ]; then
    shot tutorial-stream "test?id=$id" 1300
  else
    echo "no one-way stream from a to $net.3 stored: $images/tutorial-stream.png not taken" >&2
  fi
  shot tutorial-schedules schedules 700
  # 128 colours keep each picture under 200 KB in the repository (apt-get install pngquant)
  if command -v pngquant >/dev/null; then pngquant --force --ext .png 128 "$images"/tutorial-*.png; fi
  ls -l "$images"/tutorial-*.png >&2
fi
if [ -n "${CHECK:-}" ]; then
  # each picture made, a PNG of the view's size and more than a blank page's bytes; each
  # command of the tutorial answered (no error line, no Java trace)
  for n in tutorial-mesh tutorial-path tutorial-stream tutorial-schedules; do
    f="$images/$n.png"
    [ -s "$f" ] && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$f")" -gt 20000 ] \
      || { echo "tutorial: picture $f not made (or blank)" >&2; exit 1; }
  done
  ! grep -nE "^(error|nmws): |Exception|^\s+at " "$run/answers.txt" || { echo "tutorial: a command failed (above)" >&2; exit 1; }
  for want in "latency:a:c" "rtt" "nmws_tests_total"; do
    grep -q "$want" "$run/answers.txt" || { echo "tutorial: no '$want' in the answers:" >&2; cat "$run/answers.txt" >&2; exit 1; }
  done
fi
# a pair without a result is a failed run of the tutorial, after the answers and pictures it could make
[ -z "$missing" ]
