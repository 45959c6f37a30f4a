#!/bin/bash
# lab_hopcap.sh BINDIR -- per-hop capacity (issue 4 item 3, Trace-Rate style)
# against configured truth in a namespace lab with two routers,
# A -- R1 -- R2 -- B, and tbf 100mbit burst 32kb on R1's interface towards R2:
#  - hop 1 (R1, before the bottleneck) reads far above 100 Mbit/s (veth);
#  - hop 2 (R2) and hop 3 (B, the destination) read 100 Mbit/s at the frame
#    level within 5 % (tbf counts whole Ethernet frames without FCS);
#  - the hop count comes from the hop list (3, reached) and the addresses
#    are R1, R2, B.
# The default trains (64 frames, 32 skipped) outlast tbf's 32 KB burst (about
# 22 frames of 1514 bytes); packet pairs are run too, for information only.
# No responder: the answers are ICMP time-exceeded / port-unreachable.
# ICMP rate limiting is switched off in R1, R2 and B (icmp_ratelimit=0 and
# a global burst above a train's length), inside the lab only.
# Needs root and network namespaces; exits 77 (ctest "skipped") without them
# or when NMP_SKIP_LAB is set. Namespaces get unique names and are removed on
# every exit path.
set -u
BIN=$1
[ -n "${NMP_SKIP_LAB:-}" ] && { echo "NMP_SKIP_LAB set: skipped"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "not root: skipped"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null && command -v python3 >/dev/null \
    || { echo "ip/tc/python3 missing: skipped"; exit 77; }
S=$$
A=nmhA$S; R1=nmhR$S; R2=nmhS$S; B=nmhB$S
cleanup() {
    for n in $A $R1 $R2 $B; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
ip netns add $A 2>/dev/null || { echo "network namespaces unavailable: skipped"; exit 77; }
set -e
ip netns add $R1; ip netns add $R2; ip netns add $B
ip link add ha$S netns $A type veth peer name ia$S netns $R1
ip link add ib$S netns $R1 type veth peer name ja$S netns $R2
ip link add jb$S netns $R2 type veth peer name hb$S netns $B
ip -n $A addr add 10.202.0.1/30 dev ha$S;  ip -n $R1 addr add 10.202.0.2/30 dev ia$S
ip -n $R1 addr add 10.202.0.5/30 dev ib$S; ip -n $R2 addr add 10.202.0.6/30 dev ja$S
ip -n $R2 addr add 10.202.0.9/30 dev jb$S; ip -n $B addr add 10.202.0.10/30 dev hb$S
for n in $A $R1 $R2 $B; do ip -n $n link set lo up; done
ip -n $A link set ha$S up; ip -n $R1 link set ia$S up; ip -n $R1 link set ib$S up
ip -n $R2 link set ja$S up; ip -n $R2 link set jb$S up; ip -n $B link set hb$S up
ip -n $A route add default via 10.202.0.2
ip -n $R1 route add 10.202.0.8/30 via 10.202.0.6
ip -n $R2 route add 10.202.0.0/30 via 10.202.0.5
ip -n $B route add default via 10.202.0.9
for n in $R1 $R2; do ip netns exec $n sysctl -q net.ipv4.ip_forward=1; done
for n in $R1 $R2 $B; do
    ip netns exec $n sysctl -q net.ipv4.icmp_ratelimit=0
    ip netns exec $n sysctl -q net.ipv4.icmp_msgs_burst=10000 2>/dev/null || true
    ip netns exec $n sysctl -q net.ipv4.icmp_msgs_per_sec=100000 2>/dev/null || true
done
ip netns exec $R1 tc qdisc add dev ib$S root tbf rate 100mbit burst 32kb latency 50ms
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

j=$($X hopcap --host 10.202.0.10 --json ${NMP_HOPCAP_ARGS:-})
[ -n "${NMP_LAB_VERBOSE:-}" ] && echo "$j"
show "'%d hops, reached %s, %d x %d frames of %d B, skip %d, %.0f ms' % (len(r['hops']), r['reached'], r['trains'], r['trainLength'], r['packetSize'], r['skip'], r['elapsedMs'])" "$j"
for h in 0 1 2; do
    show "'hop {ttl} {address}: frame {frameMbps:.2f} Mbit/s{lb}, mode {modeFrameMbps:.2f}, p25..p75 {p25Mbps:.2f}..{p75Mbps:.2f}, head {headFrameMbps}; trains used {trainsUsed} of {trainsSent} (missing {missing}, reordered {reordered}, sender-limited {senderLimited}); answers {replies} of {probesSent}, {kernelStamped} kernel-stamped'.format(lb=' (lower bound)' if r['hops'][$h]['lowerBound'] else '', **r['hops'][$h])" "$j"
done
check "r['reached'] and r['hopCount'] == 3 and r['discovered'] and len(r['hops']) == 3" "$j"
check "[h['address'] for h in r['hops']] == ['10.202.0.2', '10.202.0.6', '10.202.0.10'] and r['hops'][2]['destination']" "$j"
check "r['hops'][0]['frameMbps'] is not None and r['hops'][0]['frameMbps'] > 300" "$j"
check "r['hops'][1]['frameMbps'] is not None and abs(r['hops'][1]['frameMbps'] - 100) <= 5" "$j"
check "r['hops'][2]['frameMbps'] is not None and abs(r['hops'][2]['frameMbps'] - 100) <= 5" "$j"
check "all(h['trainsUsed'] >= r['trains'] // 2 for h in r['hops'])" "$j"
check "all(h['replies'] <= h['probesSent'] and h['kernelStamped'] <= h['replies'] for h in r['hops'])" "$j"
# Information only: packet pairs (Trace-Rate's original probe) cannot see a
# token bucket, which passes a pair inside its burst at line rate.
j=$($X hopcap --host 10.202.0.10 --hops 3 --train-len 2 --trains 30 --json)
show "'pairs, frame Mbit/s per hop: ' + ', '.join('%.0f%s' % (h['frameMbps'], ' (lower bound)' if h['lowerBound'] else '') for h in r['hops'])" "$j"
exit $fail
