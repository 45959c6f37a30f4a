#!/usr/bin/env bash
# The scheduler's punctuality (issue 25 goal 2): one point holding SCHEDULES (200) round-trip
# schedules to a local responder (5 frames 10 ms apart, every PERIOD (PT1M), slips spread
# over the period), for MINUTES (5); then, from each schedule's GET /api/schedules/NAME/runs,
# the start lateness of every run that came due (started - planned: p50, p99, max) and the
# runs that did not start, by reason. Prints a Markdown table. Needs a build
# (./mvnw -DskipTests install); runs from service/target and native-probe/target.
#
#   bench/scheduler.sh                 # 200 schedules, 5 minutes
#   SCHEDULES=20 PERIOD=PT10S MINUTES=3 bench/scheduler.sh     # the issue's first measurement
set -euo pipefail
cd "$(dirname "$0")/.."
n=${SCHEDULES:-200}
period=${PERIOD:-PT1M}
minutes=${MINUTES:-5}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-scheduler.XXXXXX")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
rport=$(free_port)
native-probe/target/native/bin/nmprobe-responder -b 127.0.0.1 -p "$rport" >"$work/responder.log" 2>&1 &
rpid=$!
java -Xmx512m -jar service/target/nmws-service-*-exec.jar --server.port="$port" --nmws.data-dir="$work/data" \
  --nmws.responder-port="$rport" --nmws.scheduler.max-per-owner=0 --nmws.limits.tests-per-client-per-minute=0 \
  >"$work/service.log" 2>&1 &
spid=$!
trap 'kill $spid $rpid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
url=http://127.0.0.1:$port
for _ in $(seq 1 240); do curl -fsS "$url/actuator/health" >/dev/null 2>&1 && break; sleep 0.25; done
python3 - "$url" "$n" "$period" <<'PY'
import json, sys, urllib.request
url, n, period = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(n):
    body = json.dumps({"characteristic": "path.delay.roundTrip", "dst": "127.0.0.1", "period": period,
                       "slip": period, "parameters": {"count": "5", "interval": "0.01"}}).encode()
    r = urllib.request.Request(f"{url}/api/schedules/punctual-{i:03d}", data=body, method="PUT",
                               headers={"Content-Type": "application/json"})
    urllib.request.urlopen(r).read()
PY
echo "$n schedules every $period; running $minutes min" >&2
sleep $((minutes * 60))
python3 - "$url" "$n" "$minutes" "$period" <<'PY'
import json, sys, collections, urllib.request, datetime as dt
url, n, minutes, period = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
parse = lambda s: dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
now = dt.datetime.now(dt.timezone.utc)
late, why, due = [], collections.Counter(), 0
for i in range(n):
    for r in json.load(urllib.request.urlopen(f"{url}/api/schedules/punctual-{i:03d}/runs?limit=1000")):
        if r["status"] in ("PLANNED", "RUNNING") or parse(r["planned"]) > now - dt.timedelta(seconds=10):
            continue
        due += 1
        if r["started"] and r["status"] == "DONE":
            late.append((parse(r["started"]) - parse(r["planned"])).total_seconds() * 1000)
        if r["status"] != "DONE":
            why[r["status"] + ": " + (r["reason"] or "")[:60]] += 1
late.sort()
q = lambda p: late[min(len(late) - 1, int(p * len(late)))] if late else float("nan")
print(f"| schedules | period | minutes | runs due | ran | start lateness p50 / p99 / max (ms) | not started or failed |")
print("|---|---|---|---|---|---|---|")
print(f"| {n} | {period} | {minutes} | {due} | {len(late)} | {q(0.5):.1f} / {q(0.99):.1f} / {late[-1] if late else 0:.1f} | "
      + (", ".join(f"{c} {w}" for w, c in why.most_common()) or "none") + " |")
PY
