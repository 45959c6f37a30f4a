#!/bin/bash
# bench/probe/before_after.sh OLD_BINDIR NEW_BINDIR OLD_JAR NEW_JAR -- one build of nmws
# against another, side by side in one run on one veth pair (needs root): the figures a
# change to the engine, the JNI binding or the service core must not make worse.
#  1. request-response RTT, 20000 x 64 B at 100 us and at 20 us: min and median (CLI);
#  2. frames per second back to back, 1,000,000 x 64 B and 200,000 x 1472 B: sent and
#     received frames/s (CLI);
#  3. the same two tests through each build's service (POST /nmwg; JNI, XML, archive
#     write): wall time per request against its own CLI's.
# Rounds alternate old and new, so both see the same machine (this VM changes speed for
# seconds at a time). One responder (the new one) serves both: the wire protocol is the same.
# NMP_BENCH_ROUNDS: rounds per row (default 5).
set -u
OLD=$(cd "$1" && pwd); NEW=$(cd "$2" && pwd); OLD_JAR=$3; NEW_JAR=$4
ROUNDS=${NMP_BENCH_ROUNDS:-5}
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 1; }
S=$$
A=baA$S; B=baB$S
PIDS=""
TMPD=$(mktemp -d /tmp/nmp_ba.XXXXXX)
cleanup() {
    for p in $PIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$TMPD"
    for n in $A $B; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
set -e
. "$(dirname "$0")/veth.sh"
veth_pair $A $B va$S vb$S 10.207.0.1/30 10.207.0.2/30
ip netns exec $B "$NEW/nmprobe-responder" -b 10.207.0.2 -q & PIDS="$PIDS $!"
mkdir -p $TMPD/old $TMPD/new
ip netns exec $A java -jar "$OLD_JAR" --server.port=18094 --nmws.data-dir=$TMPD/old >$TMPD/old.log 2>&1 & PIDS="$! $PIDS"
ip netns exec $A java -jar "$NEW_JAR" --server.port=18095 --nmws.data-dir=$TMPD/new >$TMPD/new.log 2>&1 & PIDS="$! $PIDS"
for port in 18094 18095; do
    for i in $(seq 120); do
        ip netns exec $A curl -s -o /dev/null http://127.0.0.1:$port/actuator/health 2>/dev/null && break
        sleep 1
    done
done
set +e
echo "old: $OLD, $(basename "$OLD_JAR"); new: $NEW, $(basename "$NEW_JAR"); $ROUNDS alternating rounds per row"
echo
ip netns exec $A python3 - "$OLD/nmprobe" "$NEW/nmprobe" "$ROUNDS" <<'PY'
import json, re, statistics, subprocess, sys, time, urllib.request
old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
DST = "10.207.0.2"
def cli(binary, args):
    t = time.perf_counter()
    out = subprocess.run([binary] + args.split(), capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t, json.loads(out)
REQ = ('<nmwg:message xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/" '
       'type="MeasurementRequest" id="b1"><nmwg:metadata id="m1"><nmwg:subject id="s1"><nmwgt:endPointPair>'
       '<nmwgt:dst type="ipv4" value="' + DST + '"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>%s</nmwg:eventType>'
       '<nmwg:parameters id="p1">%s</nmwg:parameters></nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>')
def svc(port, ev, p):
    body = (REQ % (ev, ''.join('<nmwg:parameter name="%s">%s</nmwg:parameter>' % kv for kv in p.items()))).encode()
    req = urllib.request.Request("http://127.0.0.1:%d/nmwg" % port, data=body, headers={"Content-Type": "application/xml"})
    t = time.perf_counter(); out = urllib.request.urlopen(req, timeout=120).read().decode()
    w = time.perf_counter() - t
    if "env:environment" not in out: raise SystemExit("no result from port %d: %s" % (port, out[:300]))
    return w
med = statistics.median
print("## 1. Request-response RTT, 20000 x 64 B (CLI), median of %d rounds" % rounds)
print()
print("| interval | build | min us | median us |")
print("|---|---|---|---|")
for iv in (100, 20):
    res = {"old": [], "new": []}
    for _ in range(rounds):
        for name, b in (("old", old), ("new", new)):
            _, r = cli(b, "rr --host %s --count 20000 --size 64 --interval-us %d --json" % (DST, iv))
            res[name].append((r["minRttMs"] * 1e3, r["medianRttMs"] * 1e3))
    for name in ("old", "new"):
        print("| %d us | %s | %.2f | %.2f |" % (iv, name, med(x[0] for x in res[name]), med(x[1] for x in res[name])))
print()
print("## 2. Frames per second back to back (CLI), median of %d rounds" % rounds)
print()
print("| payload | build | sent frames/s | received frames/s |")
print("|---|---|---|---|")
for size, count in ((64, 1000000), (1472, 200000)):
    res = {"old": [], "new": []}
    for _ in range(rounds):
        for name, b in (("old", old), ("new", new)):
            _, r = cli(b, "stream --host %s --count %d --size %d --interval-us 0 --timeout-ms 500 --json" % (DST, count, size))
            span_s = (r["lastSendEpochNanos"] - r["firstSendEpochNanos"]) / 1e9
            rspan = (r["lastArrivalEpochNanos"] - r["firstArrivalEpochNanos"]) / 1e9
            res[name].append((r["sent"] / span_s, r["received"] / rspan if rspan > 0 else 0))
    for name in ("old", "new"):
        print("| %d B | %s | %.0f | %.0f |" % (size, name, med(x[0] for x in res[name]), med(x[1] for x in res[name])))
print()
print("## 3. Through the service (POST /nmwg) against the CLI, wall s, median of %d rounds" % rounds)
print()
tests = (("request-response 20000 x 64 B at 100 us", "rr --host %s --count 20000 --size 64 --interval-us 100 --timeout-ms 1000 --json" % DST,
          "path.delay.roundTrip", dict(count=20000, packetSize=64, interval="0.0001", timeout="1")),
         ("UDP stream 20000 x 1472 B at 20 us", "stream --host %s --count 20000 --size 1472 --interval-us 20 --timeout-ms 500 --json" % DST,
          "http://ggf.org/ns/nmwg/tools/owamp/2.0", dict(count=20000, packetSize=1472, interval="0.00002", timeout="0.5")))
print("| test | build | CLI wall s | service wall s | overhead ms |")
print("|---|---|---|---|---|")
for name, args, ev, p in tests:
    for port in (18094, 18095):
        svc(port, ev, p); svc(port, ev, p)  # JIT warm-up
    res = {"old": ([], []), "new": ([], [])}
    for _ in range(rounds):
        for build, b, port in (("old", old, 18094), ("new", new, 18095)):
            res[build][0].append(cli(b, args)[0])
            res[build][1].append(svc(port, ev, p))
    for build in ("old", "new"):
        c, s = med(res[build][0]), med(res[build][1])
        print("| %s | %s | %.3f | %.3f | %.1f |" % (name, build, c, s, (s - c) * 1e3))
PY
