#!/usr/bin/env bash
# The request path of one build against another's, side by side in one run on loopback
# (docs/benchmarks.md, "Request path"): what a refactoring of the service core must not make
# slower. Both services run at once against one responder; rounds alternate old and new, so
# both see the same machine.
#  1. EchoRequest over plain HTTP and SOAP 1.1: requests/s and p50 with wrk (16 connections);
#  2. a small round-trip test (10 x 64 B, 1 ms apart) through POST /nmwg and through SOAP:
#     wall ms per request, sequential (the test holds its path);
#  3. a stored-results query (SetupDataRequest of every round trip kept so far): wall ms.
# usage: bench/request_path.sh OLD_EXEC_JAR NEW_EXEC_JAR [rounds, default 5]
# Needs wrk (apt install wrk) and the responder binary of native-probe's build.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD_JAR=$1; NEW_JAR=$2; ROUNDS=${3:-5}
work=$(mktemp -d /tmp/nmws-rp.XXXXXX)
rport=18190; oport=18191; nport=18192
pids=""
trap 'kill $pids 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
native-probe/target/native/bin/nmprobe-responder -p $rport -b 127.0.0.1 -q >"$work/responder.log" 2>&1 & pids="$pids $!"
for b in old:$oport:$OLD_JAR new:$nport:$NEW_JAR; do
  IFS=: read -r name port jar <<<"$b"
  java -Xmx512m -jar "$jar" --server.port=$port --nmws.data-dir="$work/$name" --nmws.responder-port=$rport \
    --nmws.limits.tests-per-client-per-minute=0 --logging.level.root=WARN >"$work/$name.log" 2>&1 & pids="$pids $!"
done
for port in $oport $nport; do
  for _ in $(seq 120); do curl -s -o /dev/null "http://127.0.0.1:$port/actuator/health" && break; sleep 1; done
done
NS='xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/"'
echo_msg="<nmwg:message $NS type=\"EchoRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>"
soap() { printf '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>%s</SOAP-ENV:Body></SOAP-ENV:Envelope>' "$1"; }
wrk_case() { # port path body content-type -> "req/s p50ms"
  printf '%s' "$3" > "$work/body"
  cat > "$work/req.lua" <<LUA
local f = io.open("$work/body", "rb"); wrk.body = f:read("*a"); f:close()
wrk.method = "POST"; wrk.headers["Content-Type"] = "$4"
done = function(s, l, r) io.write(string.format("RESULT %.0f %.2f\n", s.requests / (s.duration / 1e6), l:percentile(50) / 1000)) end
LUA
  wrk -t2 -c16 -d5s --timeout 10s -s "$work/req.lua" "http://127.0.0.1:$1$2" | awk '/^RESULT/ {print $2, $3}'
}
echo "old: $(basename "$OLD_JAR"), new: $(basename "$NEW_JAR"); $ROUNDS alternating rounds per row (medians)"
echo
echo "| case | build | req/s | p50 ms |"
echo "|---|---|---|---|"
for c in "Echo, HTTP POST /nmwg|/nmwg|$echo_msg|application/xml" "Echo, SOAP 1.1|/services/MeasurementService|$(soap "$echo_msg")|text/xml"; do
  IFS='|' read -r label path body type <<<"$c"
  wrk_case $oport "$path" "$body" "$type" >/dev/null; wrk_case $nport "$path" "$body" "$type" >/dev/null # warm-up
  : > "$work/old.r"; : > "$work/new.r"
  for _ in $(seq "$ROUNDS"); do
    wrk_case $oport "$path" "$body" "$type" >> "$work/old.r"
    wrk_case $nport "$path" "$body" "$type" >> "$work/new.r"
  done
  for name in old new; do
    python3 -c 'import statistics,sys; r=[l.split() for l in open(sys.argv[1])]; print("| %s | %s | %.0f | %.2f |" % (sys.argv[2], sys.argv[3], statistics.median(float(x[0]) for x in r), statistics.median(float(x[1]) for x in r)))' "$work/$name.r" "$label" "$name"
  done
done
echo
python3 - "$oport" "$nport" "$ROUNDS" <<'PY'
import statistics, sys, time, urllib.request
oport, nport, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
NS = 'xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/"'
RR = ('<nmwg:message %s type="MeasurementRequest" id="b"><nmwg:metadata id="m"><nmwg:subject id="s"><nmwgt:endPointPair>'
      '<nmwgt:dst type="ipv4" value="127.0.0.1"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip'
      '</nmwg:eventType><nmwg:parameters id="p"><nmwg:parameter name="count">10</nmwg:parameter><nmwg:parameter '
      'name="interval">0.001</nmwg:parameter></nmwg:parameters></nmwg:metadata><nmwg:data id="d" metadataIdRef="m"/>'
      '</nmwg:message>') % NS
STORED = ('<nmwg:message %s type="SetupDataRequest" id="b"><nmwg:metadata id="m"><nmwg:subject id="s"><nmwgt:endPointPair>'
          '<nmwgt:dst type="ipv4" value="127.0.0.1"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip'
          '</nmwg:eventType></nmwg:metadata><nmwg:data id="d" metadataIdRef="m"/></nmwg:message>') % NS
def soap(body):
    return ('<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>%s'
            '</SOAP-ENV:Body></SOAP-ENV:Envelope>') % body
def post(port, path, body, ctype):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=body.encode(), headers={"Content-Type": ctype})
    t = time.perf_counter(); out = urllib.request.urlopen(req, timeout=60).read().decode()
    w = (time.perf_counter() - t) * 1e3
    if "error." in out:
        raise SystemExit("port %d answered an error: %s" % (port, out[:400]))
    return w
cases = (("round trip 10 x 64 B, POST /nmwg", "/nmwg", RR, "application/xml"),
         ("round trip 10 x 64 B, SOAP 1.1", "/services/MeasurementService", soap(RR), "text/xml"),
         ("stored round trips, POST /nmwg", "/nmwg", STORED, "application/xml"))
print("| case | build | p50 ms | p90 ms |")
print("|---|---|---|---|")
for label, path, body, ctype in cases:
    for port in (oport, nport):
        for _ in range(5):
            post(port, path, body, ctype)  # warm-up
    res = {oport: [], nport: []}
    for _ in range(rounds):
        for port in (oport, nport):
            res[port] += [post(port, path, body, ctype) for _ in range(20)]
    for name, port in (("old", oport), ("new", nport)):
        v = sorted(res[port])
        print("| %s | %s | %.2f | %.2f |" % (label, name, statistics.median(v), v[int(0.9 * (len(v) - 1))]))
PY
