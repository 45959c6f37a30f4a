package org.nmws.tests.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A lab of network namespaces on this machine where the truth is known by construction:
 * A -- R1 -- ... -- Rn -- B, with a management link from the test's own namespace to A.
 * tbf in the first router sets capacity, nftables drops exactly every Nth packet, a
 * user-space delay line delays or reorders. Everything it creates carries a random id and
 * is removed by {@link #close()}, also when a test fails (and by a shutdown hook).
 */
public final class NetLab implements AutoCloseable {
    private final String id;
    private final int octet;
    private final List<String> nodes = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final Thread cleanup = new Thread(this::removeAll, "netlab-cleanup");
    private boolean closed;
    private int extraLinks;
    private final List<String> extraHostLinks = new ArrayList<>();

    private NetLab(int routers) {
        this.id = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
        this.octet = ThreadLocalRandom.current().nextInt(0, 200 - routers);
        for (int i = 0; i <= routers + 1; i++) {
            nodes.add("nmws-" + id + "-" + i);
        }
    }

    /** Builds A -- R1..Rn -- B and the management link; fails the test if it cannot (root is needed). */
    public static NetLab create(int routers) throws IOException, InterruptedException {
        if (routers < 1) {
            throw new IllegalArgumentException("a lab needs at least one router");
        }
        NetLab lab = new NetLab(routers);
        Runtime.getRuntime().addShutdownHook(lab.cleanup);
        try {
            lab.build();
        } catch (IOException | InterruptedException | RuntimeException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    private void build() throws IOException, InterruptedException {
        for (String n : nodes) {
            sh("ip", "netns", "add", n);
            inNs(n, "ip", "link", "set", "lo", "up");
        }
        int last = nodes.size() - 1;
        for (int i = 0; i < last; i++) {
            sh("ip", "link", "add", left(i), "netns", nodes.get(i), "type", "veth", "peer", "name", right(i),
                    "netns", nodes.get(i + 1));
            inNs(nodes.get(i), "ip", "addr", "add", subnet(i) + ".1/24", "dev", left(i));
            inNs(nodes.get(i + 1), "ip", "addr", "add", subnet(i) + ".2/24", "dev", right(i));
            inNs(nodes.get(i), "ip", "link", "set", left(i), "up");
            inNs(nodes.get(i + 1), "ip", "link", "set", right(i), "up");
        }
        // Routes: every node reaches every lab subnet through its neighbour on that side.
        for (int n = 0; n <= last; n++) {
            if (n > 0 && n < last) {
                inNs(nodes.get(n), "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
            }
            if (n > 0) {
                // Routers answer every TTL-expired probe and B every probe to a closed port (the
                // default rate limit starves hop lists).
                inNs(nodes.get(n), "sysctl", "-q", "-w", "net.ipv4.icmp_ratelimit=0");
                // And the namespace-wide ICMP budget (1000/s, bursts of 50) would starve trains of
                // TTL-limited probes; kernels without these per-namespace knobs keep their default.
                for (String knob : List.of("net.ipv4.icmp_msgs_per_sec=100000", "net.ipv4.icmp_msgs_burst=100000")) {
                    try {
                        inNs(nodes.get(n), "sysctl", "-q", "-w", knob);
                    } catch (IOException notHere) {
                        // not namespaced on this kernel
                    }
                }
            }
            for (int s = 0; s < last; s++) {
                if (s == n || s == n - 1) {
                    continue; // directly connected
                }
                String via = s > n ? subnet(n) + ".2" : subnet(n - 1) + ".1";
                inNs(nodes.get(n), "ip", "route", "add", subnet(s) + ".0/24", "via", via);
            }
        }
        sh("ip", "link", "add", "m" + id + "h", "type", "veth", "peer", "name", "m" + id + "a", "netns", a());
        sh("ip", "addr", "add", mgmtPrefix() + ".1/30", "dev", "m" + id + "h");
        sh("ip", "link", "set", "m" + id + "h", "up");
        inNs(a(), "ip", "addr", "add", mgmtPrefix() + ".2/30", "dev", "m" + id + "a");
        inNs(a(), "ip", "link", "set", "m" + id + "a", "up");
    }

    public String a() {
        return nodes.get(0);
    }

    public String b() {
        return nodes.get(nodes.size() - 1);
    }

    /** The i-th router, from 1. */
    public String router(int i) {
        return nodes.get(i);
    }

    /** A's address on the lab path. */
    public String aAddress() {
        return subnet(0) + ".1";
    }

    /** B's address on the lab path. */
    public String bAddress() {
        return subnet(nodes.size() - 2) + ".2";
    }

    /** The address by which router i (from 1) sends toward A: what a hop list shows. */
    public String routerAddress(int i) {
        return subnet(i - 1) + ".2";
    }

    /** The test's own address on the management link: where its requests to the service come from. */
    public String managementHostAddress() {
        return mgmtPrefix() + ".1";
    }

    /** A's address on the management link, reachable from the test's namespace. */
    public String aManagementAddress() {
        return mgmtPrefix() + ".2";
    }

    /**
     * A management link from the test's namespace to another lab node (a router, say), for a
     * second service instance there; returns the node's address on it.
     */
    public String addManagementLink(String ns) throws IOException, InterruptedException {
        int k = ++extraLinks;
        String host = "m" + id + k + "h";
        String peer = "m" + id + k + "n";
        String prefix = "10.203." + octet + "." + (4 * k);
        sh("ip", "link", "add", host, "type", "veth", "peer", "name", peer, "netns", ns);
        extraHostLinks.add(host);
        sh("ip", "addr", "add", "10.203." + octet + "." + (4 * k + 1) + "/30", "dev", host);
        sh("ip", "link", "set", host, "up");
        inNs(ns, "ip", "addr", "add", "10.203." + octet + "." + (4 * k + 2) + "/30", "dev", peer);
        inNs(ns, "ip", "link", "set", peer, "up");
        return "10.203." + octet + "." + (4 * k + 2);
    }

    /**
     * Lets namespace ns reach {@link #managementHostAddress()} (where a test's engines listen) over
     * its own management link, whose far end (this namespace's address on it) is nodeAddress.
     */
    public void routeToManagementHost(String ns, String nodeAddress) throws IOException, InterruptedException {
        int dot = nodeAddress.lastIndexOf('.');
        String hostSide = nodeAddress.substring(0, dot + 1) + (Integer.parseInt(nodeAddress.substring(dot + 1)) - 1);
        inNs(ns, "ip", "route", "add", managementHostAddress() + "/32", "via", hostSide);
    }

    /** The first router's interface toward B (egress for A -> B traffic). */
    public String r1TowardB() {
        return left(1);
    }

    /** The first router's interface toward A (ingress of A -> B traffic). */
    public String r1TowardA() {
        return right(0);
    }

    /** Capacity: a token bucket on R1's egress toward B, limit = the bottleneck buffer. */
    public void tbf(int mbit, String limitBytes) throws IOException, InterruptedException {
        inNs(router(1), "tc", "qdisc", "add", "dev", r1TowardB(), "root", "tbf", "rate", mbit + "mbit",
                "burst", "32kb", "limit", limitBytes);
    }

    /**
     * A sends one TCP segment per packet (no segmentation offload), so a router dropping "one
     * packet in n" drops one segment in n, as on a real link, not a 64 kB burst.
     */
    public void noSegmentationOffload() throws IOException, InterruptedException {
        inNs(a(), "ip", "link", "set", "dev", left(0), "gso_max_segs", "1");
    }

    /** B's interface on the lab path. */
    public String bInterface() {
        return right(nodes.size() - 2);
    }

    /** A further address of B on its lab link (host part k, 3..254): another destination behind the last router. */
    public String addBAddress(int k) throws IOException, InterruptedException {
        String address = subnet(nodes.size() - 2) + "." + k;
        inNs(b(), "ip", "addr", "add", address + "/24", "dev", bInterface());
        return address;
    }

    private final java.util.Map<String, String> classByAddress = new java.util.LinkedHashMap<>();

    /**
     * Token buckets per destination on R1's egress toward B (HTB, one class of the given rate
     * per address, each with a 200-packet queue; other traffic unshaped), so several
     * destinations sit behind bottlenecks of different capacity on one path.
     */
    public void shapePerDestination(java.util.Map<String, Integer> mbitByAddress) throws IOException, InterruptedException {
        String dev = r1TowardB();
        inNs(router(1), "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "99");
        inNs(router(1), "tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:99", "htb", "rate", "10gbit");
        int k = 10;
        for (java.util.Map.Entry<String, Integer> e : mbitByAddress.entrySet()) {
            String cls = "1:" + k;
            classByAddress.put(e.getKey(), cls);
            inNs(router(1), "tc", "class", "add", "dev", dev, "parent", "1:", "classid", cls, "htb", "rate", e.getValue() + "mbit",
                    "burst", "32kb");
            inNs(router(1), "tc", "qdisc", "add", "dev", dev, "parent", cls, "handle", k + ":", "pfifo", "limit", "200");
            inNs(router(1), "tc", "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip",
                    "dst", e.getKey() + "/32", "flowid", cls);
            k++;
        }
    }

    /** Changes one destination's token bucket (after {@link #shapePerDestination}). */
    public void reshape(String address, int mbit) throws IOException, InterruptedException {
        inNs(router(1), "tc", "class", "change", "dev", r1TowardB(), "parent", "1:", "classid", classByAddress.get(address),
                "htb", "rate", mbit + "mbit", "burst", "32kb");
    }

    /**
     * Delay for one destination: R1 holds all IP traffic to and from address for delayUs each
     * way, on its own queue (several destinations, several delays).
     */
    public void delayLineFor(String address, long delayUs, int queue) throws IOException, InterruptedException {
        Path bin = Path.of(System.getProperty("nmws.delayline.bin", "target/lab/nmws-delayline"));
        String q = Integer.toString(queue);
        inNs(router(1), "iptables", "-t", "mangle", "-A", "FORWARD", "-i", r1TowardA(), "-d", address, "-j", "NFQUEUE",
                "--queue-num", q, "--queue-bypass");
        inNs(router(1), "iptables", "-t", "mangle", "-A", "FORWARD", "-i", r1TowardB(), "-s", address, "-j", "NFQUEUE",
                "--queue-num", q, "--queue-bypass");
        Process p = start(List.of("ip", "netns", "exec", router(1), "chrt", "-f", "50", bin.toAbsolutePath().toString(), "-q", q,
                "-d", Long.toString(delayUs)), "delayline-" + queue);
        Thread.sleep(300);
        if (!p.isAlive()) {
            throw new IllegalStateException("delay line " + queue + " exited at start with status " + p.exitValue());
        }
    }

    /** Loss: R1 drops exactly one UDP packet in every n forwarded from A's side. */
    public void dropEveryNth(int n) throws IOException, InterruptedException {
        dropEveryNth(n, "udp");
    }

    /** Loss: R1 drops exactly one packet of protocol l4proto (udp, tcp) in every n forwarded from A's side. */
    public void dropEveryNth(int n, String l4proto) throws IOException, InterruptedException {
        inNs(router(1), "nft", "add", "table", "inet", "lab");
        inNs(router(1), "nft", "add", "chain", "inet", "lab", "fw", "{ type filter hook forward priority 0 ; policy accept ; }");
        inNs(router(1), "nft", "add", "rule", "inet", "lab", "fw", "iifname", r1TowardA(), "meta", "l4proto", l4proto,
                "numgen", "inc", "mod", Integer.toString(n), "==", Integer.toString(n - 1), "counter", "drop");
    }

    /** Loss toward one address: R1 drops exactly one packet of protocol l4proto to address in every n from A's side. */
    public void dropEveryNthTo(String address, int n, String l4proto) throws IOException, InterruptedException {
        inNs(router(1), "nft", "add", "table", "inet", "lab");
        inNs(router(1), "nft", "add", "chain", "inet", "lab", "fw", "{ type filter hook forward priority 0 ; policy accept ; }");
        inNs(router(1), "nft", "add", "rule", "inet", "lab", "fw", "iifname", r1TowardA(), "ip", "daddr", address, "meta", "l4proto",
                l4proto, "numgen", "inc", "mod", Integer.toString(n), "==", Integer.toString(n - 1), "counter", "drop");
    }

    /** Random loss: R1 drops each packet of protocol l4proto from A's side with probability 1/n. */
    public void dropRandomly(int n, String l4proto) throws IOException, InterruptedException {
        inNs(router(1), "nft", "add", "table", "inet", "lab");
        inNs(router(1), "nft", "add", "chain", "inet", "lab", "fw", "{ type filter hook forward priority 0 ; policy accept ; }");
        inNs(router(1), "nft", "add", "rule", "inet", "lab", "fw", "iifname", r1TowardA(), "meta", "l4proto", l4proto,
                "numgen", "random", "mod", Integer.toString(n), "==", "0", "counter", "drop");
    }

    /**
     * Routers and B limit their ICMP as a Linux host does by default (to one peer a burst of 6,
     * then 1 a second; 1000 a second in all, bursts of 50), as real routers do, rather than
     * answering every probe as the lab otherwise lets them.
     */
    public void defaultIcmpRateLimits() throws IOException, InterruptedException {
        for (int n = 1; n < nodes.size(); n++) {
            inNs(nodes.get(n), "sysctl", "-q", "-w", "net.ipv4.icmp_ratelimit=1000");
            for (String knob : List.of("net.ipv4.icmp_msgs_per_sec=1000", "net.ipv4.icmp_msgs_burst=50")) {
                try {
                    inNs(nodes.get(n), "sysctl", "-q", "-w", knob);
                } catch (IOException notHere) {
                    // not namespaced on this kernel: the host's own (default) budget applies
                }
            }
        }
    }

    /** Delay: R1 holds forwarded UDP from A (and from B when bothWays) for delayUs before passing it. */
    public void delayLine(long delayUs, boolean bothWays) throws IOException, InterruptedException {
        delayLine(delayUs, bothWays, "udp");
    }

    /** Delay of one protocol (udp, tcp) or of all IP traffic ("all"). */
    public void delayLine(long delayUs, boolean bothWays, String protocol) throws IOException, InterruptedException {
        startDelayLine(List.of("-d", Long.toString(delayUs)), bothWays, protocol);
    }

    /**
     * Reordering: R1 delays forwarded UDP from A by delayUs, and holds every k-th packet back
     * until the next {@code overtakers} packets have passed it, so the reordering extent is
     * exactly that many whatever the sender's pacing.
     */
    public void reorderLine(long delayUs, int everyK, int overtakers) throws IOException, InterruptedException {
        startDelayLine(List.of("-d", Long.toString(delayUs), "-k", Integer.toString(everyK),
                "-n", Integer.toString(overtakers)), false, "udp");
    }

    /**
     * Jitter: R1 delays forwarded UDP from A by delayUs and every k-th packet by extraUs more,
     * so consecutive one-way delays differ by exactly +extraUs and then -extraUs once in k.
     */
    public void jitterLine(long delayUs, int everyK, long extraUs) throws IOException, InterruptedException {
        // Frames 3 ms apart are sparse: spin before releases as the latency scan does, so a
        // release after the long hold is not late by a vCPU's wake-up (the max - min check).
        startDelayLine(List.of("-d", Long.toString(delayUs), "-k", Integer.toString(everyK),
                "-x", Long.toString(extraUs), "-s", "400"), false, "udp");
    }

    /**
     * A slow link: forwarded UDP from A (and from B when bothWays) is serialized at rateKbit
     * (IP length * 8 / rate per packet, one packet after another) before a delay of delayUs.
     * Both directions share the one link (half duplex), which a request-response test never
     * notices: the reply leaves only after the request has arrived.
     */
    public void slowLink(long rateKbit, long delayUs, boolean bothWays) throws IOException, InterruptedException {
        // Spins the last 0.4 ms before each release: the latency scan's frames are sparse, and
        // sleeping through a release woke late by more the longer the frame (see delayline.c).
        startDelayLine(List.of("-d", Long.toString(delayUs), "-r", Long.toString(rateKbit), "-s", "400"), bothWays, "udp");
    }

    private void startDelayLine(List<String> args, boolean bothWays, String protocol) throws IOException, InterruptedException {
        Path bin = Path.of(System.getProperty("nmws.delayline.bin", "target/lab/nmws-delayline"));
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException("delay line binary missing: " + bin.toAbsolutePath());
        }
        inNs(router(1), "iptables", "-t", "mangle", "-A", "FORWARD", "-i", r1TowardA(), "-p", protocol,
                "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass");
        if (bothWays) {
            inNs(router(1), "iptables", "-t", "mangle", "-A", "FORWARD", "-i", r1TowardB(), "-p", protocol,
                    "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass");
        }
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", router(1), "chrt", "-f", "50",
                bin.toAbsolutePath().toString(), "-q", "0"));
        cmd.addAll(args);
        Process p = start(cmd, "delayline");
        Thread.sleep(300); // the queue binds before traffic arrives; --queue-bypass passes packets until then
        if (!p.isAlive()) {
            throw new IllegalStateException("delay line exited at start with status " + p.exitValue());
        }
    }

    /** Starts a process in the lab that is killed when the lab closes; output goes to a log file. */
    public Process start(List<String> command, String name) throws IOException {
        Path log = Files.createTempFile("netlab-" + name, ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        synchronized (processes) {
            processes.add(p);
        }
        return p;
    }

    /** Starts a command inside a namespace (see {@link #start}). */
    public Process startIn(String ns, List<String> command, String name) throws IOException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        full.addAll(command);
        return start(full, name);
    }

    /** Waits until a TCP port answers, from the test's namespace. */
    public static void awaitPort(String host, int port, Process owner, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 200);
                return;
            } catch (IOException notYet) {
                if (owner != null && !owner.isAlive()) {
                    throw new IllegalStateException("process exited with status " + owner.exitValue() + " before " + host + ":" + port + " answered");
                }
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException(host + ":" + port + " did not answer within " + timeoutMs + " ms");
    }

    /**
     * Waits until something listens on a TCP port inside a namespace (the lab's addresses are
     * not routed from the test's own namespace, and a probe connection would disturb servers
     * such as iperf3 that take each connection as a test).
     */
    public void awaitListening(String ns, int port, long timeoutMs) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            if (!inNs(ns, "ss", "-ltnH", "sport = :" + port).isBlank()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("nothing listens on port " + port + " in " + ns + " after " + timeoutMs + " ms");
    }

    /** Runs a command inside a namespace and returns its output; fails on a non-zero exit. */
    public String inNs(String ns, String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        full.addAll(List.of(command));
        return sh(full.toArray(new String[0]));
    }

    public static String sh(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": timed out");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + ": " + text.trim());
        }
        return text;
    }

    private String left(int link) {
        return "v" + id + link + "l";
    }

    private String right(int link) {
        return "v" + id + link + "r";
    }

    private String subnet(int link) {
        return "10.201." + (octet + link);
    }

    private String mgmtPrefix() {
        return "10.202." + octet;
    }

    private synchronized void removeAll() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (processes) {
            for (Process p : processes) {
                p.destroy();
            }
            for (Process p : processes) {
                try {
                    if (!p.waitFor(5, TimeUnit.SECONDS)) {
                        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (String n : nodes) {
            try {
                sh("ip", "netns", "del", n);
            } catch (IOException | InterruptedException ignored) {
                // already gone, or never made: nothing to remove
            }
        }
        List<String> links = new ArrayList<>(extraHostLinks);
        links.add("m" + id + "h");
        for (String link : links) {
            try {
                sh("ip", "link", "del", link);
            } catch (IOException | InterruptedException ignored) {
                // went with its peer's namespace
            }
        }
    }

    @Override
    public void close() {
        removeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }
}
