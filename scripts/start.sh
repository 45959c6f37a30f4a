#!/usr/bin/env bash
# Builds nmws, starts a local responder and the service on the embedded archive (SQLite
# under ./data), runs a first real round-trip test through the service and prints the
# NM-WG response. The service and responder keep running; scripts/stop.sh stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
port=${NMWS_PORT:-8080}
responder_port=${NMWS_RESPONDER_PORT:-8700}
run="$top/run"
mkdir -p "$run" "$top/data"

need() { command -v "$1" >/dev/null 2>&1; }
# libssl-dev: the engine's HMAC-SHA256 for authenticated responder sessions (OpenSSL's libcrypto)
if ! need cmake || ! need gcc || ! need javac || ! need curl || ! dpkg -s libssl-dev >/dev/null 2>&1; then
  echo "installing build tools (cmake, gcc, JDK 17, curl, libssl-dev)..." >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q cmake gcc make openjdk-17-jdk-headless curl libssl-dev;
  else sudo apt-get update -q && sudo apt-get install -y -q cmake gcc make openjdk-17-jdk-headless curl libssl-dev; fi
fi

echo "building (first run downloads dependencies)..." >&2
./mvnw -q -B -DskipTests install

scripts/stop.sh >/dev/null 2>&1 || true

native-probe/target/native/bin/nmprobe-responder -b 127.0.0.1 -p "$responder_port" >"$run/responder.log" 2>&1 &
echo $! >"$run/responder.pid"

java -jar service/target/nmws-service-*-exec.jar --server.port="$port" --nmws.data-dir="$top/data" \
  --nmws.responder-port="$responder_port" >"$run/service.log" 2>&1 &
echo $! >"$run/service.pid"

url="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  if curl -fsS "$url/actuator/health" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$(cat "$run/service.pid")" 2>/dev/null; then echo "service failed to start:" >&2; tail -50 "$run/service.log" >&2; exit 1; fi
  sleep 0.5
done

echo "first test: round trip to the local responder through the service (SOAP 1.1)" >&2
java -jar client/target/nmws-client-*-exec.jar --url "$url" rtt 127.0.0.1 --count 10 --interval 0.01

cat >&2 <<MSG

nmws is running on $url
  SOAP 1.1  $url/services/MeasurementService   (WSDL: ?wsdl)
  SOAP 1.2  $url/services/MeasurementService12
  HTTP      POST an NMWG message to $url/nmwg
  responder nmprobe-responder on 127.0.0.1:$responder_port
  archive   $top/data/nmws.db    logs: $run/
Stop both with scripts/stop.sh
MSG
