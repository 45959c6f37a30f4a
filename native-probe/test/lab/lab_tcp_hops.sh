#!/bin/bash
# lab_tcp_hops.sh BINDIR -- end-to-end checks of the TCP throughput test and
# the hop list against configured truth in a namespace lab with two routers,
# A -- R1 -- R2 -- B (see the lab recipe):
#  - the hop list shows exactly R1, R2 and then B (3 hops, reached);
#  - tbf 100mbit on R2 towards B: TCP throughput 95.5 Mbit/s (100 * 1448/1514)
#    within 5 %, with 1 and with 4 streams;
#  - constant bit rate over the same path delivers every message on
#    schedule when the rate fits; with nft dropping 1 TCP segment in 300 every
#    message still arrives, in order, and the retransmissions are counted.
#    (The lateness figures are printed: with this lab's 0.1 ms RTT, TCP
#    recovers within a few ms; growth after loss needs a delay line.)
# Needs root and network namespaces; exits 77 (ctest "skipped") without them
# or when NMP_SKIP_LAB is set. Namespaces get unique names and are removed on
# every exit path. ICMP rate limiting is switched off inside the lab only.
set -u
BIN=$1
[ -n "${NMP_SKIP_LAB:-}" ] && { echo "NMP_SKIP_LAB set: skipped"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "not root: skipped"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null && command -v nft >/dev/null && command -v python3 >/dev/null \
    || { echo "ip/tc/nft/python3 missing: skipped"; exit 77; }
S=$$
A=nmtA$S; R1=nmtR$S; R2=nmtS$S; B=nmtB$S
RP=""
cleanup() {
    [ -n "$RP" ] && kill -TERM "$RP" 2>/dev/null && wait "$RP" 2>/dev/null
    for n in $A $R1 $R2 $B; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
ip netns add $A 2>/dev/null || { echo "network namespaces unavailable: skipped"; exit 77; }
set -e
ip netns add $R1; ip netns add $R2; ip netns add $B
ip link add va$S netns $A type veth peer name ra$S netns $R1
ip link add rb$S netns $R1 type veth peer name sa$S netns $R2
ip link add sb$S netns $R2 type veth peer name vb$S netns $B
ip -n $A addr add 10.201.0.1/30 dev va$S;  ip -n $R1 addr add 10.201.0.2/30 dev ra$S
ip -n $R1 addr add 10.201.0.5/30 dev rb$S; ip -n $R2 addr add 10.201.0.6/30 dev sa$S
ip -n $R2 addr add 10.201.0.9/30 dev sb$S; ip -n $B addr add 10.201.0.10/30 dev vb$S
for n in $A $R1 $R2 $B; do ip -n $n link set lo up; done
ip -n $A link set va$S up; ip -n $R1 link set ra$S up; ip -n $R1 link set rb$S up
ip -n $R2 link set sa$S up; ip -n $R2 link set sb$S up; ip -n $B link set vb$S up
ip -n $A route add default via 10.201.0.2
ip -n $R1 route add 10.201.0.8/30 via 10.201.0.6
ip -n $R2 route add 10.201.0.0/30 via 10.201.0.5
ip -n $B route add default via 10.201.0.9
for n in $R1 $R2; do ip netns exec $n sysctl -q net.ipv4.ip_forward=1; done
for n in $R1 $R2 $B; do ip netns exec $n sysctl -q net.ipv4.icmp_ratelimit=0; done
ip netns exec $B "$BIN/nmprobe-responder" -b 10.201.0.10 -q &
RP=$!
sleep 0.3
X="ip netns exec $A $BIN/nmprobe"
set +e
fail=0
check() { # python-expression json
    if python3 -c "import json,sys; r=json.loads(sys.argv[2]); sys.exit(0 if ($1) else 1)" "$1" "$2"; then
        echo "ok   $1"
    else
        echo "FAIL $1"; fail=1
    fi
}
show() { python3 -c "import json,sys; r=json.loads(sys.argv[2]); print('     ' + $1)" "$1" "$2"; }

j=$($X hops --host 10.201.0.10 --json)
show "'hops %s reached %s count %d in %.1f ms' % ([h['address'] for h in r['hops']], r['reached'], r['hopCount'], r['elapsedMs'])" "$j"
check "[h['address'] for h in r['hops']] == ['10.201.0.2', '10.201.0.6', '10.201.0.10']" "$j"
check "r['reached'] and r['hopCount'] == 3 and r['hops'][2]['destination'] and r['hops'][0]['icmpType'] == 11" "$j"
check "all(h['answered'] == 3 for h in r['hops'])" "$j"

ip netns exec $R2 tc qdisc add dev sb$S root tbf rate 100mbit burst 32kb latency 50ms
for n in 1 4; do
    j=$($X tcp --host 10.201.0.10 --streams $n --duration-s 4 --json)
    show "'tcp %d streams: %.2f Mbit/s (sender %.2f), retransmits %d' % (r['streams'], r['throughputMbps'], r['sendMbps'], r['totalRetransmits'])" "$j"
    check "abs(r['throughputMbps'] - 95.5) <= 0.05 * 95.5" "$j"
    check "r['bytesReceived'] == r['bytesSent'] and len(r['perStream']) == $n" "$j"
done
j=$($X tcp --host 10.201.0.10 --size 10000 --cbr-us 1000 --duration-s 2 --json)
show "'cbr 80 Mbit/s clean: %d messages, lateness ms median %.3f p99 %.3f max %.3f' % (r['cbrMessages'], r['latenessMedianMs'], r['latenessP99Ms'], r['latenessMaxMs'])" "$j"
check "r['cbrMessages'] == 2000 and r['latenessMedianMs'] < 5" "$j"
clean_max=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['latenessMaxMs'])" "$j")
ip netns exec $R1 nft add table inet lab
ip netns exec $R1 nft add chain inet lab filt '{ type filter hook forward priority 0; }'
ip netns exec $R1 nft add rule inet lab filt iifname ra$S meta l4proto tcp numgen inc mod 300 == 299 counter drop
j=$($X tcp --host 10.201.0.10 --size 10000 --cbr-us 900 --duration-s 3 --json)
show "'cbr 89 Mbit/s, 1/300 dropped: %d messages, retransmits %d, lateness ms median %.3f p99 %.3f max %.3f' % (r['cbrMessages'], r['totalRetransmits'], r['latenessMedianMs'], r['latenessP99Ms'], r['latenessMaxMs'])" "$j"
check "r['totalRetransmits'] > 0 and r['cbrMessages'] == 3334 and r['latenessMaxMs'] >= r['latenessP99Ms']" "$j"
echo "     unimpaired cbr max lateness was $clean_max ms"
exit $fail
