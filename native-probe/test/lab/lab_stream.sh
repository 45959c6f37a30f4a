#!/bin/bash
# lab_stream.sh BINDIR -- end-to-end checks against configured truth in a
# namespace lab A -- R -- B (see the lab recipe): TTL through one router,
# tbf 100mbit bottleneck (rate after loss ~97.2 Mbit/s of 1472-byte payload,
# loss-onset buffer estimate near the tbf limit), nft dropping exactly one
# UDP datagram in 100. Needs root and network namespaces; exits 77 (ctest
# "skipped") without them or when NMP_SKIP_LAB is set. Namespaces get unique
# names and are removed on every exit path.
set -u
BIN=$1
[ -n "${NMP_SKIP_LAB:-}" ] && { echo "NMP_SKIP_LAB set: skipped"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "not root: skipped"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null && command -v nft >/dev/null && command -v python3 >/dev/null \
    || { echo "ip/tc/nft/python3 missing: skipped"; exit 77; }
S=$$
A=nmpA$S; R=nmpR$S; B=nmpB$S
RP=""
cleanup() {
    [ -n "$RP" ] && kill -TERM "$RP" 2>/dev/null && wait "$RP" 2>/dev/null
    for n in $A $R $B; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
ip netns add $A 2>/dev/null || { echo "network namespaces unavailable: skipped"; exit 77; }
set -e
ip netns add $R; ip netns add $B
ip link add va$S netns $A type veth peer name ra$S netns $R
ip link add vb$S netns $B type veth peer name rb$S netns $R
ip -n $A addr add 10.200.0.1/28 dev va$S; ip -n $R addr add 10.200.0.2/28 dev ra$S
ip -n $B addr add 10.200.0.17/28 dev vb$S; ip -n $R addr add 10.200.0.18/28 dev rb$S
for n in $A $R $B; do ip -n $n link set lo up; done
ip -n $A link set va$S up; ip -n $R link set ra$S up; ip -n $R link set rb$S up; ip -n $B link set vb$S up
ip -n $A route add default via 10.200.0.2; ip -n $B route add default via 10.200.0.18
ip netns exec $R sysctl -q net.ipv4.ip_forward=1
ip netns exec $B "$BIN/nmprobe-responder" -b 10.200.0.17 -q &
RP=$!
sleep 0.3
X="ip netns exec $A $BIN/nmprobe"
set +e
fail=0
check() { # name python-expression json
    if python3 -c "import json,sys; r=json.loads(sys.argv[2]); sys.exit(0 if ($1) else 1)" "$1" "$2"; then
        echo "ok   $1"
    else
        echo "FAIL $1"; fail=1
    fi
}
j=$($X rr --host 10.200.0.17 --count 50 --interval-us 200 --json --frames)
check "r['received'] == 50 and all(f['ttl'] == 63 for f in r['frames'])" "$j"

ip netns exec $R tc qdisc add dev rb$S root tbf rate 100mbit burst 32kb limit 65536
j=$($X stream --host 10.200.0.17 --count 20000 --size 1472 --interval-us 0 --timeout-ms 300 --json)
echo "$j" | grep -E '"(received|firstLossSeq|rateAfterLossMbps|bufferEstimateBytes|bufferEstimateByDelayBytes|networkLost)"'
check "90 <= r['rateAfterLossMbps'] <= 100" "$j"
check "0.6 * 65536 <= r['bufferEstimateBytes'] <= 1.4 * 65536" "$j"
check "0.6 * 65536 <= r['bufferEstimateByDelayBytes'] <= 1.4 * 65536" "$j"
check "r['receiverSocketDrops'] == 0 and r['networkLost'] == r['lost'] > 0" "$j"  # the bucket's loss, none the host's
ip netns exec $R tc qdisc del dev rb$S root

ip netns exec $R nft add table inet lab
ip netns exec $R nft add chain inet lab filt '{ type filter hook forward priority 0; }'
ip netns exec $R nft add rule inet lab filt iifname ra$S meta l4proto udp numgen inc mod 100 == 99 counter drop
j=$($X stream --host 10.200.0.17 --count 5000 --size 1000 --interval-us 100 --timeout-ms 300 --json)
echo "$j" | grep -E '"(lost|lossIntervalMean|networkLost)"'
check "r['lost'] == 50 and r['lossIntervalMean'] == 100 and r['networkLost'] == 50" "$j"
exit $fail
