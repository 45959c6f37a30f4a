#!/bin/bash
# bench/probe/run.sh BINDIR -- side-by-side benchmarks of the nmprobe engine
# against standard tools, in one run, on namespace labs (needs root):
#  1. veth pair A -- B: rr latency vs ping (and sockperf ping-pong if
#     installed); UDP stream throughput at spacing 0/12/20 us vs iperf3 -u;
#     TCP throughput with 1 and 4 streams vs iperf3 (-P 4).
#  2. A -- R1 -- R2 -- B: hop list time vs traceroute.
#  3. A -- R -- B with tbf 100mbit on R: capacity (packet trains) and
#     available bandwidth (rate scan, idle and with 40 Mbit/s iperf3 UDP
#     background): estimate and time per estimate. No packet-train or
#     rate-scan tool (pathrate, pathload, ...) is packaged here, so the only
#     side-by-side row is iperf3 -u saturating the path (achievable UDP).
# Prints a markdown table per part; the commands are printed with them.
# Namespaces get unique names and are removed on exit.
set -u
BIN=${1:-/work/main/native-probe/target/native/bin}
DUR=${NMP_BENCH_SECONDS:-5}
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 1; }
S=$$
A=nbA$S; B=nbB$S; A2=nbC$S; R1=nbR$S; R2=nbS$S; B2=nbD$S; A3=nbE$S; R3=nbF$S; B3=nbG$S
PIDS=""
cleanup() {
    for p in $PIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    for n in $A $B $A2 $R1 $R2 $B2 $A3 $R3 $B3; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
set -e
ip netns add $A; ip netns add $B
ip link add va$S netns $A type veth peer name vb$S netns $B
ip -n $A addr add 10.202.0.1/30 dev va$S; ip -n $B addr add 10.202.0.2/30 dev vb$S
for n in $A $B; do ip -n $n link set lo up; done
ip -n $A link set va$S up; ip -n $B link set vb$S up
ip netns exec $B "$BIN/nmprobe-responder" -b 10.202.0.2 -q & PIDS="$PIDS $!"
ip netns exec $B iperf3 -s -B 10.202.0.2 -D --pidfile /tmp/nb_iperf3_$S.pid >/dev/null
sleep 0.5
PIDS="$PIDS $(cat /tmp/nb_iperf3_$S.pid)"
set +e
XA="ip netns exec $A"
J() { python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }

echo "## 1. Latency, veth pair (64-byte payload, 10000 frames/pings at 100 us / 1 ms)"
echo
echo "| tool | command | min us | median us | mean us |"
echo "|---|---|---|---|---|"
c="nmprobe rr --host 10.202.0.2 --count 10000 --size 64 --interval-us 100 --json"
$XA $BIN/$c | J "'| nmprobe rr | \`$c\` | %.1f | %.1f | %.1f |' % (r['minRttMs']*1e3, r['medianRttMs']*1e3, r['meanRttMs']*1e3)"
c="ping -q -c 2000 -i 0.001 -s 56 10.202.0.2"
$XA $c | python3 -c "
import sys,re
t=sys.stdin.read(); m=re.search(r'= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms', t)
print('| ping | \`$c\` | %.1f | n/a | %.1f |' % (float(m.group(1))*1e3, float(m.group(2))*1e3))"
if command -v sockperf >/dev/null; then
    ip netns exec $B sockperf server -i 10.202.0.2 -p 11111 >/dev/null 2>&1 & PIDS="$PIDS $!"
    sleep 0.3
    c="sockperf ping-pong -i 10.202.0.2 -p 11111 -m 64 -t $DUR"
    $XA $c 2>&1 | grep -E "avg-latency|percentile 50.000|<MIN>" | sed 's/^/    /'
else
    echo "| sockperf | not installed on this machine | | | |"
fi
echo

echo "## 2. UDP stream throughput, veth pair, 1472-byte payload, 200000 frames"
echo
echo "| tool | spacing | command | sent Mbit/s | received Mbit/s | loss % |"
echo "|---|---|---|---|---|---|"
for sp in 0 12 20; do
    c="nmprobe stream --host 10.202.0.2 --count 200000 --size 1472 --interval-us $sp --timeout-ms 500 --json"
    $XA $BIN/$c | J "'| nmprobe stream | $sp us | \`$c\` | %.0f | %.0f | %.3f |' % (r['sendUserMbps'], r['recvUserMbps'], r['lossPercent'])"
done
for b in 0 981M 589M; do
    c="iperf3 -c 10.202.0.2 -u -l 1472 -b $b -t $DUR -J"
    $XA $c | J "'| iperf3 -u | -b $b | \`$c\` | %.0f | %.0f | %.3f |' % (r['end']['sum']['bits_per_second']/1e6 if 'sum' in r['end'] else 0, r['end']['sum']['bits_per_second']*(1-r['end']['sum']['lost_percent']/100)/1e6, r['end']['sum']['lost_percent'])"
done
echo "(981M and 589M are 1472*8/12us and 1472*8/20us: the same offered rates as the spacings)"
echo

echo "## 3. TCP throughput, veth pair (MTU 1500), $DUR s"
echo
echo "| tool | streams | command | Mbit/s (receiver) | retransmits |"
echo "|---|---|---|---|---|"
for n in 1 4; do
    c="nmprobe tcp --host 10.202.0.2 --streams $n --duration-s $DUR --json"
    $XA $BIN/$c | J "'| nmprobe tcp | $n | \`$c\` | %.0f | %d |' % (r['throughputMbps'], r['totalRetransmits'])"
    c="iperf3 -c 10.202.0.2 -P $n -t $DUR -J"
    $XA $c | J "'| iperf3 | $n | \`$c\` | %.0f | %d |' % (r['end']['sum_received']['bits_per_second']/1e6, r['end']['sum_sent'].get('retransmits', 0))"
done
echo

echo "## 4. Hop list, A -- R1 -- R2 -- B (3 hops), 3 probes per hop, 10 runs each"
ip netns add $A2; ip netns add $R1; ip netns add $R2; ip netns add $B2
ip link add xa$S netns $A2 type veth peer name ya$S netns $R1
ip link add yb$S netns $R1 type veth peer name za$S netns $R2
ip link add zb$S netns $R2 type veth peer name xb$S netns $B2
ip -n $A2 addr add 10.203.0.1/30 dev xa$S;  ip -n $R1 addr add 10.203.0.2/30 dev ya$S
ip -n $R1 addr add 10.203.0.5/30 dev yb$S; ip -n $R2 addr add 10.203.0.6/30 dev za$S
ip -n $R2 addr add 10.203.0.9/30 dev zb$S; ip -n $B2 addr add 10.203.0.10/30 dev xb$S
for n in $A2 $R1 $R2 $B2; do ip -n $n link set lo up; done
ip -n $A2 link set xa$S up; ip -n $R1 link set ya$S up; ip -n $R1 link set yb$S up
ip -n $R2 link set za$S up; ip -n $R2 link set zb$S up; ip -n $B2 link set xb$S up
ip -n $A2 route add default via 10.203.0.2; ip -n $R1 route add 10.203.0.8/30 via 10.203.0.6
ip -n $R2 route add 10.203.0.0/30 via 10.203.0.5; ip -n $B2 route add default via 10.203.0.9
for n in $R1 $R2; do ip netns exec $n sysctl -q net.ipv4.ip_forward=1; done
for n in $R1 $R2 $B2; do ip netns exec $n sysctl -q net.ipv4.icmp_ratelimit=0; done
echo
echo "| tool | command | hops shown | wall ms per run (median of 10) |"
echo "|---|---|---|---|"
timeit() { # command... -> median wall ms of 10 runs, and the last output
    python3 - "$@" <<'PY'
import subprocess, sys, time, statistics
ts=[]; out=""
for i in range(10):
    t=time.perf_counter(); out=subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout; ts.append((time.perf_counter()-t)*1e3)
print("%.1f" % statistics.median(ts)); print(out)
PY
}
c="nmprobe hops --host 10.203.0.10 --json"
o=$(timeit ip netns exec $A2 $BIN/nmprobe hops --host 10.203.0.10 --json)
ms=$(echo "$o" | head -1); hops=$(echo "$o" | tail -n +2 | J "' '.join(h['address'] for h in r['hops'])")
echo "| nmprobe hops | \`$c\` | $hops | $ms |"
c="traceroute -n -q 3 10.203.0.10"
o=$(timeit ip netns exec $A2 traceroute -n -q 3 10.203.0.10)
ms=$(echo "$o" | head -1); hops=$(echo "$o" | tail -n +3 | awk '{print $2}' | tr '\n' ' ')
echo "| traceroute | \`$c\` | $hops | $ms |"
echo

echo "## 5. Capacity and available bandwidth, A -- R -- B, tbf 100mbit burst 32kb on R (truth: 100 Mbit/s frame level = 97.2 user; 57.2 user available beside 40 Mbit/s of UDP)"
ip netns add $A3; ip netns add $R3; ip netns add $B3
ip link add wa$S netns $A3 type veth peer name qa$S netns $R3
ip link add qb$S netns $R3 type veth peer name wb$S netns $B3
ip -n $A3 addr add 10.205.0.1/28 dev wa$S;  ip -n $R3 addr add 10.205.0.2/28 dev qa$S
ip -n $R3 addr add 10.205.0.17/28 dev qb$S; ip -n $B3 addr add 10.205.0.18/28 dev wb$S
for n in $A3 $R3 $B3; do ip -n $n link set lo up; done
ip -n $A3 link set wa$S up; ip -n $R3 link set qa$S up; ip -n $R3 link set qb$S up; ip -n $B3 link set wb$S up
ip -n $A3 route add default via 10.205.0.2; ip -n $B3 route add default via 10.205.0.17
ip netns exec $R3 sysctl -q net.ipv4.ip_forward=1
ip netns exec $R3 tc qdisc add dev qb$S root tbf rate 100mbit burst 32kb latency 50ms
ip netns exec $B3 "$BIN/nmprobe-responder" -b 10.205.0.18 -q & PIDS="$PIDS $!"
ip netns exec $B3 iperf3 -s -B 10.205.0.18 -D --pidfile /tmp/nb_iperf3b_$S.pid >/dev/null
sleep 0.5
PIDS="$PIDS $(cat /tmp/nb_iperf3b_$S.pid)"
X3="ip netns exec $A3"
echo
echo "| tool | background | command | estimate Mbit/s (user / frame / wire) | spread or bracket | wall s per estimate |"
echo "|---|---|---|---|---|---|"
for i in 1 2 3; do
    c="nmprobe capacity --host 10.205.0.18 --json"
    $X3 $BIN/$c | J "'| nmprobe capacity | none | \`$c\` | %.2f / %.2f / %.2f | p10 %.2f p90 %.2f, %d/%d trains | %.2f |' % (r['userMbps'], r['frameMbps'], r['wireMbps'], r['p10Mbps'], r['p90Mbps'], r['trainsUsed'], r['trainsSent'], r['elapsedMs']/1e3)"
done
c="iperf3 -c 10.205.0.18 -u -l 1472 -b 120M -t $DUR -J"
t0=$(date +%s.%N)
o=$($X3 $c)
t1=$(date +%s.%N)
echo "$o" | J "'| iperf3 -u (saturation) | none | \`$c\` | %.2f received / - / - | loss %.1f %% | %.2f |' % (r['end']['sum']['bits_per_second']*(1-r['end']['sum']['lost_percent']/100)/1e6, r['end']['sum']['lost_percent'], $t1-$t0)"
c="nmprobe avail --host 10.205.0.18 --max-mbps 150 --step-mbps 10 --json"
$X3 $BIN/$c | J "'| nmprobe avail | none | \`$c\` | %.2f / - / %.2f | %.2f..%.2f, %d steps | %.2f |' % (r['estimateMbps'], r['estimateWireMbps'], r['lowerMbps'], r['upperMbps'], len(r['steps']), r['elapsedMs']/1e3)"
ip netns exec $A3 iperf3 -c 10.205.0.18 -u -b 40M -t 60 >/dev/null 2>&1 & BG=$!
PIDS="$BG $PIDS"
sleep 1.5
c="nmprobe avail --host 10.205.0.18 --max-mbps 100 --step-mbps 10 --json"
$X3 $BIN/$c | J "'| nmprobe avail | iperf3 -u -b 40M | \`$c\` | %.2f / - / %.2f | %.2f..%.2f, %d steps | %.2f |' % (r['estimateMbps'], r['estimateWireMbps'], r['lowerMbps'], r['upperMbps'], len(r['steps']), r['elapsedMs']/1e3)"
c="nmprobe capacity --host 10.205.0.18 --json"
$X3 $BIN/$c | J "'| nmprobe capacity | iperf3 -u -b 40M | \`$c\` | %.2f / %.2f / %.2f | p10 %.2f p90 %.2f, %d/%d trains | %.2f |' % (r['userMbps'], r['frameMbps'], r['wireMbps'], r['p10Mbps'], r['p90Mbps'], r['trainsUsed'], r['trainsSent'], r['elapsedMs']/1e3)"
kill -TERM $BG 2>/dev/null; wait $BG 2>/dev/null
