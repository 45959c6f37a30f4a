#!/usr/bin/env bash
# One point holding a national mesh's share (issue 24 item 3): STREAMS (300) continuous one-way
# latency streams (10 packets a second, back-to-back one-minute sessions, as powstream keeps
# them) and OTHERS (200) round trips every minute (5 frames, slips over the minute), each to a
# destination of its own: 127.0.x.y addresses served by responders of PER (10) destinations
# each (a responder stands for the far hosts; it serves at most 16 sessions, and its calendar
# counts them for all its addresses: 15 streams on one met each other's minute handovers). Runs
# MINUTES (5), then reports, as a Markdown table:
#   - runs due, started and not (by reason), and start lateness (started - planned), streams and
#     round trips apart;
#   - the streams' sessions: frames sent and lost;
#   - their packet schedule: each frame's send time against its place on the session's grid
#     (send_i - send_0 - i * interval), over the raw frames of SAMPLE (30) streams' sessions;
#   - the service's CPU (of one core) and resident memory, its threads, and the responders' CPU.
# Needs a build (./mvnw -DskipTests install); runs from service/target and native-probe/target.
#
#   bench/continuous.sh                                  # 300 streams, 200 round trips, 5 minutes
#   STREAMS=30 OTHERS=20 MINUTES=3 bench/continuous.sh   # a quick look
set -euo pipefail
cd "$(dirname "$0")/.."
streams=${STREAMS:-300}
others=${OTHERS:-200}
minutes=${MINUTES:-5}
sample=${SAMPLE:-30}
per=${PER:-10}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-continuous.XXXXXX")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
total=$((streams + others))
nresp=$(((total + per - 1) / per))
port=$(free_port)
base=$(python3 -c "import random; print(random.randint(20000, 40000))")
pids=()
for k in $(seq 0 $((nresp - 1))); do
  native-probe/target/native/bin/nmprobe-responder -b 0.0.0.0 -p $((base + k)) --sessions 16 -q \
    >"$work/responder-$k.log" 2>&1 &
  pids+=($!)
done
java -Xmx1g -jar service/target/nmws-service-*-exec.jar --server.port="$port" --nmws.data-dir="$work/data" \
  --nmws.scheduler.max-per-owner=0 --nmws.limits.tests-per-client-per-minute=0 \
  >"$work/service.log" 2>&1 &
spid=$!
trap 'kill $spid "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
url=http://127.0.0.1:$port
for _ in $(seq 1 240); do curl -fsS "$url/actuator/health" >/dev/null 2>&1 && break; sleep 0.25; done
python3 - "$url" "$streams" "$others" "$base" "$per" <<'PY'
import json, sys, urllib.request
url, streams, others, base, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def put(name, body):
    r = urllib.request.Request(f"{url}/api/schedules/{name}", data=json.dumps(body).encode(), method="PUT",
                               headers={"Content-Type": "application/json"})
    urllib.request.urlopen(r).read()
for i in range(streams + others):
    dst = f"127.0.{1 + i // 250}.{1 + i % 250}"
    p = str(base + i // per)
    if i < streams:
        put(f"owd-{i:03d}", {"characteristic": "path.delay.oneWay", "dst": dst, "continuous": True,
                             "parameters": {"port": p}})
    else:
        put(f"rtt-{i:03d}", {"characteristic": "path.delay.roundTrip", "dst": dst, "period": "PT1M", "slip": "PT1M",
                             "parameters": {"count": "5", "interval": "0.01", "port": p}})
PY
echo "$streams streams and $others round trips on one point, $nresp responders; running $minutes min" >&2
# CPU and memory every 10 s: the service's and the responders' clock ticks, the service's RSS and threads
python3 - "$spid" "$minutes" "${pids[@]}" >"$work/usage.json" <<'PY' &
import json, os, sys, time
spid, minutes, rpids = int(sys.argv[1]), int(sys.argv[2]), [int(p) for p in sys.argv[3:]]
hz = os.sysconf("SC_CLK_TCK")
def ticks(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
def status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
samples = []
t0, s0, r0 = time.time(), ticks(spid), sum(ticks(p) for p in rpids)
start = (t0, s0, r0)
while time.time() - start[0] < minutes * 60 - 5:
    time.sleep(10)
    t, s, r = time.time(), ticks(spid), sum(ticks(p) for p in rpids)
    samples.append({"cpu": (s - s0) / hz / (t - t0) * 100, "rcpu": (r - r0) / hz / (t - t0) * 100,
                    "rssMb": status(spid, "VmRSS") / 1024, "threads": status(spid, "Threads")})
    t0, s0, r0 = t, s, r
print(json.dumps(samples))
PY
upid=$!
sleep $((minutes * 60))
wait $upid || true
python3 - "$url" "$streams" "$others" "$sample" "$work/usage.json" <<'PY'
import json, sys, collections, urllib.request, datetime as dt
url, streams, others, sample, usage = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
get = lambda path: json.load(urllib.request.urlopen(url + path))
parse = lambda s: dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
now = dt.datetime.now(dt.timezone.utc)
def runs(prefix, n, first):
    late, why, due = [], collections.Counter(), 0
    for i in range(first, first + n):
        for r in get(f"/api/schedules/{prefix}-{i:03d}/runs?limit=1000"):
            if r["status"] in ("PLANNED", "RUNNING") or parse(r["planned"]) > now - dt.timedelta(seconds=10):
                continue
            due += 1
            if r["started"] and r["status"] == "DONE":
                late.append((parse(r["started"]) - parse(r["planned"])).total_seconds() * 1000)
            if r["status"] != "DONE":
                why[r["status"] + ": " + (r["reason"] or "")[:70]] += 1
    late.sort()
    return due, late, why
q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")
print("| runs | due | done | start lateness p50 / p99 / max (ms) | not done |")
print("|---|---|---|---|---|")
for label, prefix, n, first in (("continuous streams' one-minute sessions", "owd", streams, 0),
                                ("round trips every minute", "rtt", others, streams)):
    due, late, why = runs(prefix, n, first)
    print(f"| {label} | {due} | {len(late)} | {q(late, .5):.1f} / {q(late, .99):.1f} / {late[-1] if late else 0:.1f} | "
          + (", ".join(f"{c} {w}" for w, c in why.most_common()) or "none") + " |")
sent = lost = sessions = 0
dev = []
for i in range(streams):
    dst = f"127.0.{1 + i // 250}.{1 + i % 250}"
    raw = "true" if i < sample else "false"
    res = get(f"/api/results?characteristic=path.delay.oneWay&dst={dst}&limit=100&raw={raw}")["results"]
    for o in res:
        s = o["summary"]
        sessions += 1
        sent += s.get("sent", 0)
        lost += s.get("lost", 0)
        fr = o.get("frames") or []
        if len(fr) > 1:
            interval = float(o["parameters"]["interval"]) * 1e9
            t0 = fr[0]["sendEpochNanos"]
            dev += [abs(f["sendEpochNanos"] - t0 - k * interval) / 1e6 for k, f in enumerate(fr)]
dev.sort()
print()
print(f"| streams' sessions stored | frames sent | frames lost | send time off its grid p50 / p99 / max (ms, {len(dev):,} frames of {sample} streams) |")
print("|---|---|---|---|")
print(f"| {sessions} | {sent:,.0f} | {lost:,.0f} | {q(dev, .5):.3f} / {q(dev, .99):.3f} / {dev[-1] if dev else 0:.3f} |")
u = json.load(open(usage))
if u:
    cpu = sorted(x["cpu"] for x in u)
    print()
    print("| service CPU % of one core, median / max | RSS MB, max | threads, max | responders' CPU %, median |")
    print("|---|---|---|---|")
    print(f"| {q(cpu, .5):.0f} / {cpu[-1]:.0f} | {max(x['rssMb'] for x in u):.0f} | {max(x['threads'] for x in u)} | "
          f"{sorted(x['rcpu'] for x in u)[len(u) // 2]:.0f} |")
PY
