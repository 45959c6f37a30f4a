#!/usr/bin/env bash
# Stored answers and Echo over SOAP against the JSON API and a trivial POST on the same server
# (docs/benchmarks.md, "SOAP against JSON", issue 25 goals 1 and 3), for one build or two side
# by side. Each build's service runs at once on loopback (bench profile: the trivial endpoint)
# with its own SQLite archive holding one day of round-trip summaries (1440, seeded by
# bench/seed_day.py) and one stored 100,000-frame round-trip test; rounds alternate the builds
# and, within a build, the cases, so all see the same machine. Per round and build:
#  1. a day of summaries: SetupDataRequest over SOAP 1.1 (the newest 1000, marked partial)
#     against GET /api/results?limit=1000 (the same 1000), 10 sequential requests each;
#  2. the 100,000 frames read back: SetupDataRequest by maKey with raw=true over SOAP against
#     GET /api/observations/ID, 3 sequential requests each (wall time and bytes);
#  3. Echo over SOAP 1.1 against POST /bench/trivial: wrk, 2 threads, 8 connections, 4 s each.
# Prints medians over rounds. NMWS_BENCH_JFR=DIR records each service with JFR into DIR.
# The services allow 400,000 frames and sample points an answer (the default 100,000 counts a
# round trip's per-frame samples too, so the 100,000-frame test's raw answer would be refused).
# usage: bench/stored_soap.sh JAR [JAR2] [rounds, default 5]
# Needs wrk (apt install wrk) and the responder binary of native-probe's build.
set -euo pipefail
cd "$(dirname "$0")/.."
jars=("$1"); ROUNDS=5
if [ $# -ge 2 ] && [ -f "$2" ]; then jars+=("$2"); ROUNDS=${3:-5}; else ROUNDS=${2:-5}; fi
work=$(mktemp -d /tmp/nmws-ss.XXXXXX)
rport=18290
pids=""
trap 'kill $pids 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
native-probe/target/native/bin/nmprobe-responder -p $rport -b 127.0.0.1 -q >"$work/responder.log" 2>&1 & pids="$pids $!"
ports=()
for i in "${!jars[@]}"; do
  port=$((18291 + i)); ports+=("$port")
  jfr=()
  if [ -n "${NMWS_BENCH_JFR:-}" ]; then
    mkdir -p "$NMWS_BENCH_JFR"; jfr=("-XX:StartFlightRecording=filename=$NMWS_BENCH_JFR/build$i.jfr,settings=profile")
  fi
  java -Xmx1g "${jfr[@]}" -jar "${jars[$i]}" --server.port="$port" --nmws.data-dir="$work/b$i" --nmws.responder-port=$rport \
    --spring.profiles.active=bench --nmws.limits.tests-per-client-per-minute=0 --logging.level.root=WARN \
    --nmws.limits.max-answer-frames=400000 >"$work/b$i.log" 2>&1 & pids="$pids $!"
done
for port in "${ports[@]}"; do
  for _ in $(seq 120); do curl -s -o /dev/null "http://127.0.0.1:$port/actuator/health" && break; sleep 1; done
done
NS='xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/"'
soap() { printf '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>%s</SOAP-ENV:Body></SOAP-ENV:Envelope>' "$1"; }
rr() { # count interval -> MeasurementRequest
  echo "<nmwg:message $NS type=\"MeasurementRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\"><nmwg:parameter name=\"count\">$1</nmwg:parameter><nmwg:parameter name=\"interval\">$2</nmwg:parameter>${3:-}</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>"
}
for i in "${!jars[@]}"; do
  port=${ports[$i]}
  curl -s -o /dev/null -X POST -H 'Content-Type: application/xml' --data-binary "$(rr 10 0.001)" "http://127.0.0.1:$port/nmwg"
  python3 bench/seed_day.py "$work/b$i/nmws.db" >/dev/null
  # the raw test after the seeding: the day keeps 1440 copies of the small one
  curl -s -X POST -H 'Content-Type: application/xml' --data-binary "$(rr 100000 0.00002)" "http://127.0.0.1:$port/nmwg" \
    | grep -o 'name="maKey">[0-9]*' | head -1 | grep -o '[0-9]*$' > "$work/id$i"
  [ -s "$work/id$i" ] || { echo "build $i: the 100,000-frame test gave no key" >&2; exit 1; }
  # rawForm=packed (issue 25) where the build knows it; an older build answers error.common.parameter
  curl -s -X POST -H 'Content-Type: application/xml' --data-binary "$(rr 10 0.001 '<nmwg:parameter name="rawForm">packed</nmwg:parameter><nmwg:parameter name="raw">true</nmwg:parameter>')" \
    "http://127.0.0.1:$port/nmwg" | grep -q 'frame.seqNum' && echo yes > "$work/packed$i" || echo no > "$work/packed$i"
done
echo_msg="<nmwg:message $NS type=\"EchoRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>"
soap "$echo_msg" > "$work/echo"
printf x > "$work/trivial"
wrk_case() { # port path bodyfile content-type -> "req/s p50ms"
  cat > "$work/req.lua" <<LUA
local f = io.open("$3", "rb"); wrk.body = f:read("*a"); f:close()
wrk.method = "POST"; wrk.headers["Content-Type"] = "$4"
done = function(s, l, r) io.write(string.format("RESULT %.0f %.2f %d\n", s.requests / (s.duration / 1e6), l:percentile(50) / 1000, s.errors.status)) end
LUA
  wrk -t2 -c8 -d4s --timeout 10s -s "$work/req.lua" "http://127.0.0.1:$1$2" | awk '/^RESULT/ {print $2, $3, $4}'
}
echo "builds: ${jars[*]}; $ROUNDS alternating rounds (medians); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/wrk.r"
stored() { # round: the python part for every build, one after the other
  python3 - "$work" "$@" <<'PY'
import http.client, sys, time
work, ports = sys.argv[1], sys.argv[2:]
NS = 'xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/"'
ENV = ('<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>%s'
       '</SOAP-ENV:Body></SOAP-ENV:Envelope>')
DAY = ENV % ('<nmwg:message %s type="SetupDataRequest" id="b"><nmwg:metadata id="m"><nmwg:subject id="s">'
             '<nmwgt:endPointPair><nmwgt:dst type="ipv4" value="127.0.0.1"/></nmwgt:endPointPair></nmwg:subject>'
             '<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>'
             '<nmwg:data id="d" metadataIdRef="m"/></nmwg:message>') % NS
RAW = ENV % ('<nmwg:message %s type="SetupDataRequest" id="b"><nmwg:metadata id="m"><nmwg:key id="k">'
             '<nmwg:parameters id="kp"><nmwg:parameter name="maKey">%%s</nmwg:parameter></nmwg:parameters></nmwg:key>'
             '<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id="p">'
             '<nmwg:parameter name="raw">true</nmwg:parameter>%%s</nmwg:parameters></nmwg:metadata>'
             '<nmwg:data id="d" metadataIdRef="m"/></nmwg:message>') % NS
PACKED = '<nmwg:parameter name="rawForm">packed</nmwg:parameter>'
def timed(conn, method, path, body, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        conn.request(method, path, body=body, headers={"Content-Type": "text/xml", "SOAPAction": "http://ggf.org/ns/nmwg/base/2.0/message/"} if body else {})
        r = conn.getresponse(); data = r.read()
        out.append((time.perf_counter() - t) * 1e3)
        if r.status != 200 or b"error." in data[:20000]:
            raise SystemExit("%s %s answered %d: %s" % (method, path, r.status, data[:400]))
    return sorted(out)[len(out) // 2], len(data)
for i, port in enumerate(ports):
    key = open("%s/id%d" % (work, i)).read().strip()
    packed = open("%s/packed%d" % (work, i)).read().strip() == "yes"
    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
    rows = [("day-soap",) + timed(conn, "POST", "/services/MeasurementService", DAY.encode(), 10),
            ("day-json",) + timed(conn, "GET", "/api/results?dst=127.0.0.1&limit=1000", None, 10),
            ("raw-soap",) + timed(conn, "POST", "/services/MeasurementService", (RAW % (key, "")).encode(), 3),
            ("packed-soap",) + (timed(conn, "POST", "/services/MeasurementService", (RAW % (key, PACKED)).encode(), 3)
                                if packed else (float("nan"), 0)),
            ("raw-json",) + timed(conn, "GET", "/api/observations/%s" % key, None, 3)]
    with open("%s/stored%d.r" % (work, i), "a") as f:
        for name, ms, size in rows:
            f.write("%s %.2f %d\n" % (name, ms, size))
PY
}
stored "${ports[@]}"; rm -f "$work"/stored*.r # warm-up
for i in "${!jars[@]}"; do
  wrk_case "${ports[$i]}" /services/MeasurementService "$work/echo" text/xml >/dev/null
  wrk_case "${ports[$i]}" /bench/trivial "$work/trivial" text/plain >/dev/null
done
for _ in $(seq "$ROUNDS"); do
  stored "${ports[@]}"
  for i in "${!jars[@]}"; do
    echo "$i echo-soap $(wrk_case "${ports[$i]}" /services/MeasurementService "$work/echo" text/xml)" >> "$work/wrk.r"
    echo "$i trivial $(wrk_case "${ports[$i]}" /bench/trivial "$work/trivial" text/plain)" >> "$work/wrk.r"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work" "${#jars[@]}" "${jars[@]}" <<'PY'
import statistics as st, sys
work, n, jars = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print()
print("| build | day SOAP p50 ms | day JSON p50 ms | SOAP/JSON | raw SOAP ms (datums / packed) | raw JSON ms | SOAP/JSON time (datums / packed) | raw SOAP MB (datums / packed) | raw JSON MB | SOAP/JSON bytes (datums / packed) | Echo SOAP req/s | trivial req/s | Echo/trivial |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
w = [l.split() for l in open(work + "/wrk.r")]
for i in range(n):
    s = {}
    for name, ms, size in (l.split() for l in open("%s/stored%d.r" % (work, i))):
        s.setdefault(name, []).append((float(ms), int(size)))
    med = lambda k: st.median(v[0] for v in s[k])
    size = lambda k: s[k][-1][1] / 1e6
    rate = lambda k: st.median(float(x[2]) for x in w if x[0] == str(i) and x[1] == k)
    print("| %s | %.1f | %.1f | %.2f | %.0f / %.0f | %.0f | %.2f / %.2f | %.2f / %.2f | %.2f | %.2f / %.2f | %.0f | %.0f | %.2f |" % (
        jars[i].split("/")[-1], med("day-soap"), med("day-json"), med("day-soap") / med("day-json"),
        med("raw-soap"), med("packed-soap"), med("raw-json"), med("raw-soap") / med("raw-json"),
        med("packed-soap") / med("raw-json"), size("raw-soap"), size("packed-soap"), size("raw-json"),
        size("raw-soap") / size("raw-json"), size("packed-soap") / size("raw-json"),
        rate("echo-soap"), rate("trivial"), rate("echo-soap") / rate("trivial")))
PY
