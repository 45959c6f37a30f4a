#!/usr/bin/env bash
# Where the SOAP layer's time goes (docs/benchmarks.md, "Profile"): one service (bench profile)
# with a day of round-trip summaries and one 100,000-frame test, then each case driven alone by
# wrk while JDK Flight Recorder samples it (jcmd JFR.start / JFR.stop around the case), and the
# samples summed up: the top frames by own time, and the share of samples under each marker frame
# (JAXB marshalling, DOM building, CXF's writing of the answer, the body's prepasses, the archive
# read, Jackson). Recordings are kept in OUT_DIR (default /tmp/nmws-profile) for `jfr print` or JMC.
# usage: bench/profile_soap.sh JAR [seconds per case, default 10] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$1; secs=${2:-10}; out=${3:-/tmp/nmws-profile}
mkdir -p "$out"
work=$(mktemp -d /tmp/nmws-prof.XXXXXX)
port=18390; rport=18391
pids=""
trap 'kill $pids 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
native-probe/target/native/bin/nmprobe-responder -p $rport -b 127.0.0.1 -q >"$work/responder.log" 2>&1 & pids="$pids $!"
java -Xmx1g -XX:FlightRecorderOptions=stackdepth=512 -jar "$jar" --server.port=$port --nmws.data-dir="$work/data" \
  --nmws.responder-port=$rport --spring.profiles.active=bench --nmws.limits.tests-per-client-per-minute=0 --nmws.limits.max-answer-frames=400000 \
  --logging.level.root=WARN >"$work/svc.log" 2>&1 & svc=$!; pids="$pids $svc"
for _ in $(seq 120); do curl -s -o /dev/null "http://127.0.0.1:$port/actuator/health" && break; sleep 1; done
NS='xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/"'
soap() { printf '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>%s</SOAP-ENV:Body></SOAP-ENV:Envelope>' "$1"; }
rr() {
  echo "<nmwg:message $NS type=\"MeasurementRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\"><nmwg:parameter name=\"count\">$1</nmwg:parameter><nmwg:parameter name=\"interval\">$2</nmwg:parameter></nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>"
}
curl -s -o /dev/null -X POST -H 'Content-Type: application/xml' --data-binary "$(rr 10 0.001)" "http://127.0.0.1:$port/nmwg"
python3 bench/seed_day.py "$work/data/nmws.db" >/dev/null
key=$(curl -s -X POST -H 'Content-Type: application/xml' --data-binary "$(rr 100000 0.00002)" "http://127.0.0.1:$port/nmwg" \
  | grep -o 'name="maKey">[0-9]*' | head -1 | grep -o '[0-9]*$')
soap "<nmwg:message $NS type=\"EchoRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>" > "$work/echo"
soap "<nmwg:message $NS type=\"SetupDataRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>" > "$work/day"
soap "<nmwg:message $NS type=\"SetupDataRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:key id=\"k\"><nmwg:parameters id=\"kp\"><nmwg:parameter name=\"maKey\">$key</nmwg:parameter></nmwg:parameters></nmwg:key><nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">true</nmwg:parameter></nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>" > "$work/raw"
sed 's|<nmwg:parameter name="raw">true</nmwg:parameter>|&<nmwg:parameter name="rawForm">packed</nmwg:parameter>|' "$work/raw" > "$work/packed"
printf x > "$work/trivial"
drive() { # name method path [bodyfile content-type] connections
  if [ "$2" = POST ]; then
    printf 'local f = io.open("%s", "rb"); wrk.body = f:read("*a"); f:close()\nwrk.method = "POST"; wrk.headers["Content-Type"] = "%s"\n' "$4" "$5" > "$work/req.lua"
    c=$6
  else
    : > "$work/req.lua"; c=$4
  fi
  wrk -t1 -c"$c" -d3s --timeout 30s -s "$work/req.lua" "http://127.0.0.1:$port$3" >/dev/null # warm-up
  jcmd $svc JFR.start name="$1" settings=profile >/dev/null
  wrk -t1 -c"$c" -d"${secs}s" --timeout 30s -s "$work/req.lua" "http://127.0.0.1:$port$3" | grep -E 'Requests/sec' | sed "s/^/$1: /"
  jcmd $svc JFR.stop name="$1" filename="$out/$1.jfr" >/dev/null
}
drive echo-soap POST /services/MeasurementService "$work/echo" text/xml 8
drive trivial POST /bench/trivial "$work/trivial" text/plain 8
drive day-soap POST /services/MeasurementService "$work/day" text/xml 2
drive day-json GET "/api/results?dst=127.0.0.1&limit=1000" 2
drive raw-soap POST /services/MeasurementService "$work/raw" text/xml 1
drive packed-soap POST /services/MeasurementService "$work/packed" text/xml 1
drive raw-json GET "/api/observations/$key" 1
for c in echo-soap trivial day-soap day-json raw-soap packed-soap raw-json; do
  jfr print --json --stack-depth 512 --events jdk.ExecutionSample "$out/$c.jfr" > "$work/$c.json"
  python3 bench/jfr_summary.py "$c" "$work/$c.json"
done
