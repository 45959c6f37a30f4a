#!/usr/bin/env bash
# Transport benchmark (docs/benchmarks.md, "Transports"): requests/s and p50/p99 latency of
# EchoRequest and of a SetupDataRequest returning one day of stored summaries, over SOAP 1.1,
# XML-RPC (nmwg.message) and plain HTTP POST /nmwg, beside a trivial Spring endpoint in the
# same run (the bench profile adds it). Needs wrk (apt install wrk), a built service jar and
# the responder binary. The archive gets one day of summaries (1440, one a minute): one real
# round-trip test, copied back over the day by bench/seed_day.py.
# usage: bench/transports.sh [seconds per case, default 10] [connections, default 16]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}; conns=${2:-16}; port=${NMWS_BENCH_PORT:-18090}
jar=service/target/nmws-service-0.1.0-SNAPSHOT-exec.jar
work=$(mktemp -d /tmp/nmws-bench.XXXXXX)
trap 'kill $svc 2>/dev/null || true; rm -rf "$work"' EXIT

rport=$((port + 1))
native-probe/target/native/bin/nmprobe-responder -p $rport -b 127.0.0.1 >"$work/responder.log" 2>&1 & resp=$!
java -jar "$jar" --server.port=$port --nmws.data-dir="$work/data" --nmws.responder-port=$rport \
  --spring.profiles.active=bench --logging.level.root=WARN >"$work/svc.log" 2>&1 & svc=$!
trap 'kill $svc $resp 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 60); do curl -s -o /dev/null "http://127.0.0.1:$port/actuator/health" && break; sleep 1; done

NS='xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/" xmlns:select="http://ggf.org/ns/nmwg/ops/select/2.0/"'
echo_msg="<nmwg:message $NS type=\"EchoRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>"
day_msg="<nmwg:message $NS type=\"SetupDataRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>"
curl -s -o /dev/null -X POST -H 'Content-Type: application/xml' --data-binary "<nmwg:message $NS type=\"MeasurementRequest\" id=\"b\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>" "http://127.0.0.1:$port/nmwg"
python3 bench/seed_day.py "$work/data/nmws.db"
soap() { printf '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>%s</SOAP-ENV:Body></SOAP-ENV:Envelope>' "$1"; }
rpc() { python3 -c 'import sys, xmlrpc.client; print(xmlrpc.client.dumps((sys.argv[1],), "nmwg.message"))' "$1"; }

lua() { # $1 body file, $2 content type, $3 extra header line (lua) or empty
  cat > "$work/req.lua" <<LUA
local f = io.open("$1", "rb"); wrk.body = f:read("*a"); f:close()
wrk.method = "POST"; wrk.headers["Content-Type"] = "$2"
$3
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f %.2f %.2f %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout))
end
LUA
}
run() { # name path body content-type [soapaction]
  printf '%s' "$3" > "$work/body"
  lua "$work/body" "$4" "${5:+wrk.headers[\"SOAPAction\"] = \"$5\"}"
  curl -s -o /dev/null -X POST -H "Content-Type: $4" --data-binary @"$work/body" "http://127.0.0.1:$port$2" # warm the path
  wrk -t2 -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$work/req.lua" "http://127.0.0.1:$port$2" >/dev/null 2>&1 || true
  wrk -t2 -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$work/req.lua" "http://127.0.0.1:$port$2" | awk -v n="$1" '/^RESULT/ {printf "| %s | %s | %s | %s | %s |\n", n, $2, $3, $4, $5}'
}
echo "| case | req/s | p50 ms | p99 ms | errors |"
echo "|---|---|---|---|---|"
run "trivial Spring POST" /bench/trivial "x" text/plain
run "Echo, SOAP 1.1" /services/MeasurementService "$(soap "$echo_msg")" text/xml http://ggf.org/ns/nmwg/base/2.0/message/
run "Echo, XML-RPC nmwg.message" /RPC2 "$(rpc "$echo_msg")" text/xml
run "Echo, HTTP POST /nmwg" /nmwg "$echo_msg" application/xml
run "Day of summaries, SOAP 1.1" /services/MeasurementService "$(soap "$day_msg")" text/xml http://ggf.org/ns/nmwg/base/2.0/message/
run "Day of summaries, XML-RPC nmwg.message" /RPC2 "$(rpc "$day_msg")" text/xml
run "Day of summaries, HTTP POST /nmwg" /nmwg "$day_msg" application/xml
