#!/bin/sh
# responder_sigterm.sh RESPONDER CLI -- runs the real daemon on an ephemeral
# port, runs the CLI against it, then checks that SIGTERM ends the daemon
# with exit code 0 and that it logged the session.
set -u
resp=$1; cli=$2
log=$(mktemp); out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT
"$resp" -b 127.0.0.1 -p 0 2>"$log" &
pid=$!
port=""
for i in $(seq 1 50); do
    port=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "responder did not start"; cat "$log"; kill $pid; exit 1; }
"$cli" rr --host 127.0.0.1 --port "$port" --count 20 --size 100 --interval-us 200 --json >"$out" || { cat "$out" "$log"; kill $pid; exit 1; }
grep -q '"received": 20,' "$out" || { echo "CLI did not receive 20 replies"; cat "$out"; kill $pid; exit 1; }
kill -TERM $pid
wait $pid
rc=$?
cat "$log"
[ $rc -eq 0 ] || { echo "responder exit code $rc"; exit 1; }
grep -q 'session .* opened' "$log" && grep -q 'closed (END)' "$log" && grep -q 'stopped' "$log" || { echo "log incomplete"; exit 1; }
echo "ok"
