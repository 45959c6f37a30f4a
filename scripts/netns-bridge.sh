# Sourced by scripts/tutorial-mesh.sh and scripts/lab-mesh.sh: hosts on one bridge.
#
#   bridge_hosts PREFIX NET HOST...
#
# makes the namespace PREFIXlan with a bridge br0, and a namespace PREFIXHOST per host with an
# eth0 whose veth peer to-HOST is a port of the bridge; the hosts get NET.1, NET.2, ... (/24)
# in their order. Removing the namespaces (ip netns del) removes the rest.
bridge_hosts() {
  local p=$1 net=$2 i=1 h
  shift 2
  ip netns add "${p}lan"
  ip -n "${p}lan" link add br0 type bridge
  ip -n "${p}lan" link set br0 up
  for h in "$@"; do
    ip netns add "$p$h"
    ip -n "$p$h" link set lo up
    ip link add eth0 netns "$p$h" type veth peer name "to-$h" netns "${p}lan"
    ip -n "${p}lan" link set dev "to-$h" master br0 up
    ip -n "$p$h" addr add "$net.$i/24" dev eth0
    ip -n "$p$h" link set eth0 up
    i=$((i + 1))
  done
}
