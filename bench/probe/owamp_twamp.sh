#!/usr/bin/env bash
# OWAMP and TWAMP sessions (nmprobe owamp / twamp against nmprobe-owampd) side by side with
# the stamp and rr kinds (against nmprobe-responder) on loopback, in one run: the delay floor
# (min and median of 2000 packets at 1 ms) and the highest packet rate with zero loss
# (20000 packets at spacings of 100 us down to 0, back to back; the first spacing with a loss
# ends the climb). The rate is the one the sender achieved (its send stamps: packets - 1 over
# first to last), not the one asked. No root needed.
# usage: bench/probe/owamp_twamp.sh BINDIR [MODE]   (MODE: open (default), authenticated, encrypted)
set -euo pipefail
bin=${1:?usage: owamp_twamp.sh BINDIR [MODE]}
mode=${2:-open}
tmp=$(mktemp -d)
trap 'grep -h "refused" "$tmp/owd.log" >&2 || true; kill $owd $resp 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
printf 'bench 0123456789abcdef0123456789abcdef\n' > "$tmp/pfs"; chmod 600 "$tmp/pfs"
"$bin/nmprobe-owampd" -b 127.0.0.1 --owamp-port 0 --twamp-port 0 --modes open,authenticated,encrypted \
  --key-file "$tmp/pfs" --max-pps 1000000 --max-mbps 100000 -v 2> "$tmp/owd.log" & owd=$!
stamp_port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/nmprobe-responder" -b 127.0.0.1 -p 0 --stamp-port "$stamp_port" --stamp-max-pps 1000000 \
  --stamp-source-pps 1000000 2> "$tmp/resp.log" & resp=$!
for _ in $(seq 50); do
  grep -q "twamp listening" "$tmp/owd.log" && grep -q "listening on" "$tmp/resp.log" && break; sleep 0.1
done
op=$(sed -n 's/.*owamp listening on .* port \([0-9]*\).*/\1/p' "$tmp/owd.log")
tp=$(sed -n 's/.*twamp listening on .* port \([0-9]*\).*/\1/p' "$tmp/owd.log")
rp=$(sed -n 's/.*listening on .* port \([0-9]*\).*/\1/p' "$tmp/resp.log" | head -1)
keys=(-m "$mode" --key-id bench --key-file "$tmp/pfs")
run() { # kind count interval_us -> JSON
  local kind=$1 count=$2 iv=$3
  case $kind in
    owamp) "$bin/nmprobe" owamp --json --frames -H 127.0.0.1 -p "$op" -c "$count" -i "$iv" -t 500 "${keys[@]}" ;;
    twamp) "$bin/nmprobe" twamp --json --frames -H 127.0.0.1 -p "$tp" -c "$count" -i "$iv" -t 500 "${keys[@]}" ;;
    stamp) "$bin/nmprobe" stamp --json --frames -H 127.0.0.1 -p "$stamp_port" -c "$count" -i "$iv" -t 500 ;;
    rr)    "$bin/nmprobe" rr --json --frames -H 127.0.0.1 -p "$rp" -c "$count" -i "$iv" -t 500 ;;
  esac
}
echo "OWAMP/TWAMP ($mode) beside STAMP and rr, loopback, $(date -u +%FT%TZ), $(nproc) CPUs, $(uname -r)"
printf '%-6s %-34s %-26s %s\n' kind "delay floor min / median (us)" "max rate at 0 loss (pkt/s)" "what the delay is"
for kind in owamp twamp stamp rr; do
  floor=$(run $kind 2000 1000 | python3 -c '
import json, sys
d = json.load(sys.stdin)
k = sys.argv[1]
if k == "owamp": lo, med = d["minOwdMs"], d["medianOwdMs"]
else: lo, med = d["minRttMs"], d["medianRttMs"]
print("%.1f / %.1f" % (lo * 1e3, med * 1e3))' $kind)
  best="-"
  for iv in 100 50 20 10 5 2 1 0; do
    # a refusal (an OWAMP schedule of 0 us is an infinite rate: Accept 4) ends the climb too
    got=$(run $kind 20000 $iv 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    print("refused 0 0"); sys.exit()
s = sorted(f["sendEpochNanos"] for f in d["frames"] if f.get("sendEpochNanos"))
rate = (len(s) - 1) / ((s[-1] - s[0]) / 1e9) if len(s) > 1 and s[-1] > s[0] else 0
print(d["lost"], d["sent"], int(rate))' || true)
    read -r lost sent rate <<< "$got"
    [ "$lost" = 0 ] && [ "$sent" = 20000 ] || break
    best="$rate (at $iv us)"
  done
  case $kind in owamp) what="one way, receiver's stamps";; rr) what="round trip, user space";; *) what="round trip minus reflector residence";; esac
  printf '%-6s %-34s %-26s %s\n' $kind "$floor" "$best" "$what"
done
