#!/usr/bin/env bash
# STAMP round trip, open against authenticated mode, side by side on loopback: two
# nmprobe-responder reflectors (one with --stamp-key-file), ROUNDS alternating rounds of COUNT
# packets INTERVAL_US apart each, 112-byte packets both ways so only the HMACs differ.
# usage: bench/probe/stamp_auth.sh BINDIR [ROUNDS] [COUNT] [INTERVAL_US]
set -euo pipefail
bin=$1 rounds=${2:-3} count=${3:-20000} interval=${4:-50}
keys=$(mktemp)
chmod 600 "$keys"
echo "lab $(openssl rand -hex 32)" > "$keys"
"$bin/nmprobe-responder" -b 127.0.0.1 -p 0 -q --stamp-port 47901 --stamp-max-pps 1000000 --stamp-source-pps 1000000 &
open_pid=$!
"$bin/nmprobe-responder" -b 127.0.0.1 -p 0 -q --stamp-port 47902 --stamp-max-pps 1000000 --stamp-source-pps 1000000 \
  --stamp-key-file "$keys" &
auth_pid=$!
trap 'kill $open_pid $auth_pid; rm -f "$keys"' EXIT
sleep 0.3
printf '%-6s %-5s %9s %8s %11s %8s\n' round mode received "min us" "median us" "p99 us"
for r in $(seq "$rounds"); do
  modes="open auth"; [ $((r % 2)) = 0 ] && modes="auth open"
  for m in $modes; do
    if [ "$m" = open ]; then args=(-p 47901 -s 112); else args=(-p 47902 --auth --key-id lab --key-file "$keys"); fi
    "$bin/nmprobe" stamp -H 127.0.0.1 "${args[@]}" -c "$count" -i "$interval" --json |
      python3 -c "import json,sys; d=json.load(sys.stdin); print('%-6s %-5s %9d %8.1f %11.1f %8.1f' % ('$r', '$m', d['received'], d['minRttMs']*1e3, d['medianRttMs']*1e3, d['p99RttMs']*1e3))"
  done
done
