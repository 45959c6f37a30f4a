# Sourced by the bench scripts. veth_pair NS_A NS_B DEV_A DEV_B ADDR_A ADDR_B: two new
# namespaces joined by one veth pair, addresses given with their prefix (10.0.0.1/30).
veth_pair() {
    ip netns add "$1"
    ip netns add "$2"
    ip link add "$3" netns "$1" type veth peer name "$4" netns "$2"
    ip -n "$1" addr add "$5" dev "$3"
    ip -n "$2" addr add "$6" dev "$4"
    for n in "$1" "$2"; do ip -n "$n" link set lo up; done
    ip -n "$1" link set "$3" up
    ip -n "$2" link set "$4" up
}
