#!/usr/bin/env bash
# A mesh of N points on one machine (network namespaces on one bridge, a responder and a service
# in each, no shared archive), run for a while, then how many of its planned runs started, read
# from every point's API by scripts/mesh-report.py (issue 24's proof: at least 99 %, no two
# exclusive tests overlapping on one host, each non-starter naming its cause). Needs root and a
# build (./mvnw -DskipTests package). Everything it made is removed at exit.
#
#   sudo scripts/lab-mesh.sh                      # 6 points, 10 minutes
#   sudo POINTS=3 MINUTES=5 scripts/lab-mesh.sh
#   sudo AGREE=false scripts/lab-mesh.sh          # the same without agreed slots, to compare
#
# The mesh: round trip between every pair every 30 s, one-way latency between every pair every
# 30 s, achievable TCP throughput every 2 min from each point to the next (a ring).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
n=${POINTS:-6}
minutes=${MINUTES:-10}
agree=${AGREE:-true}
p=${NS_PREFIX:-nmlab-}
net=${SUBNET:-10.251.0}
run="$top/run/lab-mesh"
hosts=()
for i in $(seq 1 "$n"); do hosts+=("p$i"); done

clean() {
  for f in "$run"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
  sleep 1
  for h in "${hosts[@]}" lan; do ip netns del "$p$h" 2>/dev/null || true; done
}
if [ "${1:-}" = clean ]; then clean; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "needs root: it makes network namespaces" >&2; exit 1; }
jar=$(ls service/target/nmws-service-*-exec.jar)
responder=native-probe/target/native/bin/nmprobe-responder
[ -x "$responder" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 1; }
trap clean EXIT
rm -rf "$run"; mkdir -p "$run"

. scripts/netns-bridge.sh
bridge_hosts "$p" "$net" "${hosts[@]}"

points="" ring=""
for i in $(seq 1 "$n"); do
  points+="${points:+,}{\"name\":\"p$i\",\"url\":\"http://$net.$i:8080\",\"address\":\"$net.$i\"}"
  ring+="${ring:+,}[\"p$i\",\"p$(( i % n + 1 ))\"]"
done
cat >"$run/mesh.json" <<JSON
{"points": [$points],
 "groups": [
  {"name": "rtt", "characteristic": "path.delay.roundTrip", "period": "PT30S", "slip": "PT10S",
   "parameters": {"count": "10", "interval": "0.05"}},
  {"name": "owd", "characteristic": "path.delay.oneWay", "period": "PT30S", "slip": "PT10S",
   "parameters": {"count": "100", "interval": "0.01"}},
  {"name": "tput", "characteristic": "path.bandwidth.achievable.TCP", "period": "PT2M", "slip": "PT30S",
   "parameters": {"timeDuration": "3"}, "pairs": [$ring]}
 ]}
JSON

for i in $(seq 1 "$n"); do
  h=p$i
  mkdir -p "$run/$h.data"
  ip netns exec "$p$h" "$responder" -p 8700 >"$run/$h.responder.log" 2>&1 &
  echo $! >"$run/$h.responder.pid"
  ip netns exec "$p$h" java -Xmx256m -XX:TieredStopAtLevel=1 -jar "$jar" --server.port=8080 \
    --nmws.data-dir="$run/$h.data" --nmws.measurement-point="$h" --nmws.mesh.file="$run/mesh.json" \
    --nmws.scheduler.agree-slots="$agree" --nmws.scheduler.own-responder=127.0.0.1:8700 \
    --nmws.limits.test-clients="127.0.0.0/8, ::1, $net.0/24" >"$run/$h.service.log" 2>&1 &
  echo $! >"$run/$h.service.pid"
done
for h in "${hosts[@]}"; do
  for _ in $(seq 1 480); do
    ip netns exec "$p$h" curl -fsS http://127.0.0.1:8080/actuator/health >/dev/null 2>&1 && break
    sleep 0.5
  done
  ip netns exec "$p$h" curl -fsS http://127.0.0.1:8080/actuator/health >/dev/null || {
    echo "service on $h did not start:" >&2; tail -30 "$run/$h.service.log" >&2; exit 1; }
done
from=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "$n points up at $from (agreed slots: $agree); running ${minutes} min..." >&2
sleep $((minutes * 60))
to=$(date -u -d "-20 seconds" +%Y-%m-%dT%H:%M:%SZ)   # runs planned by then have ended
sleep 5
args=()
for i in $(seq 1 "$n"); do args+=("p$i=http://$net.$i:8080"); done
ip netns exec "${p}p1" python3 "$top/scripts/mesh-report.py" "$from" "$to" "${args[@]}" | tee "$run/report.txt"
