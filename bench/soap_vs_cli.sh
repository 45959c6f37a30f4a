#!/usr/bin/env bash
# A round-trip test through the service against the same test from the engine's CLI (issue 25
# goal 3: a measurement through SOAP within 10 ms of the CLI, also on a loaded host): 10 frames
# of 64 B, 1 ms apart, to one local responder, ROUNDS (30) rounds alternating nmprobe rr (a new
# process each time, as a user runs it), SOAP 1.1 and POST /nmwg (one kept-alive connection
# each); wall time per test, p50 and p90, and the service's cost over the CLI. Run it on a quiet
# host and beside a load (bench/soak.sh, or stress) to see both. WARMUP (300) requests per path
# first: a service runs for days, so its JIT has compiled the request path; WARMUP=1 is a cold one.
#   bench/soap_vs_cli.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
work=$(mktemp -d "${NMWS_BENCH_DIR:-/tmp}/nmws-soapcli.XXXXXX")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
rport=$(free_port)
native-probe/target/native/bin/nmprobe-responder -b 127.0.0.1 -p "$rport" -q >"$work/responder.log" 2>&1 &
rpid=$!
java -Xmx512m -jar service/target/nmws-service-*-exec.jar --server.port="$port" --nmws.data-dir="$work/data" \
  --nmws.responder-port="$rport" --nmws.limits.tests-per-client-per-minute=0 --logging.level.root=WARN \
  >"$work/service.log" 2>&1 &
spid=$!
trap 'kill $spid $rpid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 240); do curl -fsS "http://127.0.0.1:$port/actuator/health" >/dev/null 2>&1 && break; sleep 0.25; done
python3 - "$port" "$rport" "$rounds" native-probe/target/native/bin/nmprobe <<'PY'
import http.client, os, statistics, subprocess, sys, time
port, rport, rounds, nmprobe = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ns = 'xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/"'
msg = (f'<nmwg:message {ns} type="MeasurementRequest" id="r"><nmwg:metadata id="m"><nmwg:subject id="s">'
       '<nmwgt:endPointPair><nmwgt:dst type="ipv4" value="127.0.0.1"/></nmwgt:endPointPair></nmwg:subject>'
       '<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id="p">'
       '<nmwg:parameter name="count">10</nmwg:parameter><nmwg:parameter name="interval">0.001</nmwg:parameter>'
       '</nmwg:parameters></nmwg:metadata><nmwg:data id="d" metadataIdRef="m"/></nmwg:message>')
soap = ('<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>'
        + msg + '</SOAP-ENV:Body></SOAP-ENV:Envelope>')
conns = {"soap": http.client.HTTPConnection("127.0.0.1", port), "nmwg": http.client.HTTPConnection("127.0.0.1", port)}
def post(kind):
    c = conns[kind]
    if kind == "soap":
        c.request("POST", "/services/MeasurementService", soap.encode(), {"Content-Type": "text/xml", "SOAPAction": '""'})
    else:
        c.request("POST", "/nmwg", msg.encode(), {"Content-Type": "application/xml"})
    body = c.getresponse().read().decode()
    assert "error." not in body and "Fault" not in body, body[:400]
def cli():
    subprocess.run([nmprobe, "rr", "-H", "127.0.0.1", "-p", str(rport), "-c", "10", "-i", "1000"], check=True,
                   stdout=subprocess.DEVNULL)
times = {"cli": [], "soap": [], "nmwg": []}
warm = int(os.environ.get("WARMUP", "300"))
for k in ("soap", "nmwg"):
    for _ in range(warm):  # a service runs for days: its JIT has compiled the request path
        post(k)
for i in range(rounds):
    for k, f in (("cli", cli), ("soap", lambda: post("soap")), ("nmwg", lambda: post("nmwg"))):
        t = time.perf_counter()
        f()
        times[k].append((time.perf_counter() - t) * 1000)
q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))]
load = open("/proc/loadavg").read().split()[0]
print(f"rounds {rounds} after {warm} warm-up requests per path, load average {load}")
print("| path | p50 ms | p90 ms | p50 over the CLI |")
print("|---|---|---|---|")
for k, name in (("cli", "nmprobe rr (a process per test)"), ("soap", "SOAP 1.1"), ("nmwg", "POST /nmwg")):
    d = statistics.median(times[k]) - statistics.median(times["cli"])
    print(f"| {name} | {statistics.median(times[k]):.1f} | {q(times[k], 0.9):.1f} | {'' if k == 'cli' else f'{d:+.1f} ms'} |")
PY
