#!/usr/bin/env bash
# scripts/mesh-pairs.py against a fake service (python's http.server answering as
# /api/schedules does): a pair with a result is quiet, one without says why, and a point that
# cannot be reached is one line, never a traceback (issue 26: tutorial-mesh.sh died on an
# IndexError when a pair had no result).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$tmp"' EXIT
cat >"$tmp/fake.py" <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
answers = {
    "/api/schedules": [
        {"name": "latency:a:b", "characteristic": "path.delay.roundTrip", "dst": "10.250.0.2", "point": "a"},
        {"name": "owd:a:c", "characteristic": "path.delay.oneWay", "dst": "10.250.0.3", "point": "a"},
        {"name": "latency:a:c", "characteristic": "path.delay.roundTrip", "dst": "10.250.0.3", "point": "a"},
        {"name": "latency:b:a", "characteristic": "path.delay.roundTrip", "dst": "10.250.0.1", "point": "b"}],
    "/api/schedules/latency%3Aa%3Ab/runs": [{"status": "DONE", "observationId": 7, "planned": "2026-11-26T10:00:00Z"}],
    "/api/schedules/owd%3Aa%3Ac/runs": [
        {"status": "FAILED", "observationId": None, "planned": "2026-11-26T10:00:00Z", "reason": "old"},
        {"status": "FAILED", "observationId": None, "planned": "2026-11-26T10:00:30Z", "reason": "responder busy"},
        {"status": "PLANNED", "observationId": None, "planned": "2026-11-26T10:01:00Z", "reason": None}],
    "/api/schedules/latency%3Aa%3Ac/runs": [{"status": "RUNNING", "observationId": None, "planned": "2026-11-26T10:00:00Z"}],
}
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps(answers[self.path]).encode() if self.path in answers else b""
        self.send_response(200 if self.path in answers else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.serve_forever()
PY
python3 "$tmp/fake.py" >"$tmp/port" &
server=$!
for _ in $(seq 1 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$tmp/port")"

fail() { echo "FAIL: $*" >&2; exit 1; }
got=$(python3 scripts/mesh-pairs.py a "$url")
want="owd:a:c (path.delay.oneWay a -> 10.250.0.3): no result; last run FAILED: responder busy
latency:a:c (path.delay.roundTrip a -> 10.250.0.3): no run has ended yet (1 planned or running)"
[ "$got" = "$want" ] || fail "point a:"$'\n'"$got"$'\n'"wanted:"$'\n'"$want"
got=$(python3 scripts/mesh-pairs.py b "$url")
[ "$got" = "latency:b:a (path.delay.roundTrip b -> 10.250.0.1): its runs cannot be read (HTTP Error 404: Not Found)" ] \
  || fail "point b: $got"
got=$(python3 scripts/mesh-pairs.py c http://127.0.0.1:1 2>&1)
[[ "$got" == "point c: its schedules cannot be read ("*")" ]] && [ "$(echo "$got" | wc -l)" = 1 ] || fail "point c: $got"
# tutorial-mesh.sh's pick of the stream to picture: none stored is an empty id, not an IndexError
id=$(echo '{"results": []}' | python3 -c 'import json,sys; r=json.load(sys.stdin).get("results") or []; print(r[-1]["id"] if r else "")')
[ -z "$id" ] || fail "empty results gave id '$id'"
grep -qF "print(r[-1][\"id\"] if r else \"\")" scripts/tutorial-mesh.sh || fail "tutorial-mesh.sh picks the stream another way"
echo "mesh-pairs: ok"
