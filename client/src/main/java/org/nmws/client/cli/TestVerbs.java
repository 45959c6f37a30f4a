package org.nmws.client.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A verb per test type, as a perfSONAR user types "pscheduler task rtt --dest X": rtt, latency,
 * throughput, trace, owamp, twamp, stamp and capacity. Each has its own options (the test's
 * parameters under names a person types, lengths of time as seconds or ISO 8601) and help,
 * and sends one MeasurementRequest for its characteristic; -p NAME=VALUE passes any other
 * NMWG parameter, which the service refuses when the test does not read it.
 */
final class TestVerbs {
    private TestVerbs() {
    }

    /** What every verb shares: the destination, the far end's port, extra parameters, per-frame datums. */
    abstract static class Verb implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", paramLabel = "DST", description = "the destination (host name or address)")
        String dst;
        @Option(names = "--port", description = "the far end's port (default: the test's own)")
        Integer port;
        @Option(names = "--raw", description = "include a datum per frame")
        boolean raw;
        @Option(names = {"-p", "--parameter"}, paramLabel = "NAME=VALUE",
                description = "any other NMWG parameter, repeatable (the service refuses one the test does not read)")
        Map<String, String> extra = new LinkedHashMap<>();

        /** The characteristic asked for (GFD.023 dotted name). */
        abstract String characteristic();

        /** Puts this verb's options into p under their NMWG names. */
        abstract void parameters(Map<String, String> p);

        @Override
        public Integer call() throws Exception {
            Map<String, String> p = new LinkedHashMap<>();
            parameters(p);
            put(p, "port", port);
            if (raw) {
                p.put("raw", "true");
            }
            for (Map.Entry<String, String> e : extra.entrySet()) {
                if (p.containsKey(e.getKey())) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "-p " + e.getKey() + "=" + e.getValue()
                            + " repeats what an option of '" + spec.name() + "' already sets (" + e.getKey() + "="
                            + p.get(e.getKey()) + "); give one");
                }
                p.put(e.getKey(), e.getValue());
            }
            parent.format();
            org.nmws.client.nmwg.Message answer;
            try (AutoCloseable bar = parent.progress(dst)) {
                answer = parent.measureWhenFree(dst, characteristic(), p);
            }
            return parent.print(answer);
        }

        /** Puts a value given on the command line; one not given stays out, so the service's default applies. */
        static void put(Map<String, String> p, String name, Object value) {
            if (value != null) {
                p.put(name, value.toString());
            }
        }
    }

    /** Frames a test sends: how many, how big, how far apart, how long to wait for the last. */
    static final class Frames {
        @Option(names = {"-c", "--count"}, description = "frames to send") Integer count;
        @Option(names = {"-s", "--size"}, description = "UDP payload bytes of each frame") Integer size;
        @Option(names = {"-i", "--interval"}, converter = Durations.class,
                description = "time between frames: seconds (0.1) or ISO 8601 (PT0.1S)") String interval;
        @Option(names = "--timeout", converter = Durations.class,
                description = "how long to wait for a frame: seconds or ISO 8601") String timeout;
        @Option(names = "--ttl", description = "IP time to live of the frames") Integer ttl;

        void into(Map<String, String> p, String sizeName) {
            Verb.put(p, "count", count);
            Verb.put(p, sizeName, size);
            Verb.put(p, "interval", interval);
            Verb.put(p, "timeout", timeout);
            Verb.put(p, "ttl", ttl);
        }
    }

    @Command(name = "rtt", description = "Round trip, loss and jitter to DST now (UDP frames to nmprobe-responder).",
            footer = {"", "Examples:", "  nmws rtt 10.0.0.2", "  nmws rtt 10.0.0.2 --count 1000 --interval PT0.01S --size 1400",
                    "  nmws rtt 10.0.0.2 --duration PT30S --interval 0.1",
                    "  nmws --json rtt 10.0.0.2 | jq .results[0].figures.meanRtt",
                    "  nmws rtt 10.0.0.2 --closed-loop --count 10000 --interval 0 --timeout 0.01   (sockperf's ping-pong)",
                    "stalls counts frames a preempted host held 1 ms or more; p99PathRtt is the p99 without them.",
                    "To a TWAMP server: nmws twamp DST; to a STAMP reflector: nmws stamp DST."})
    static final class Rtt extends Verb {
        @CommandLine.Mixin Frames frames = new Frames();
        @Option(names = {"-d", "--duration"}, converter = Durations.class,
                description = "send for this long instead of --count frames: seconds or ISO 8601") String duration;
        @Option(names = "--closed-loop", description = "ping-pong: send each frame once the one before was answered "
                + "(or --timeout passed), --interval after it at the earliest") boolean closedLoop;

        @Override
        String characteristic() {
            return "path.delay.roundTrip";
        }

        @Override
        void parameters(Map<String, String> p) {
            frames.into(p, "packetSize");
            put(p, "timeDuration", duration);
            if (closedLoop) {
                p.put("closedLoop", "true");
            }
        }
    }

    @Command(name = "latency", description = "One-way delay, loss, jitter and reordering to DST now: a UDP stream to "
            + "nmprobe-responder, timed at both ends (one-way figures need both clocks synchronised).",
            footer = {"", "Examples:", "  nmws latency 10.0.0.2 --count 1000 --interval PT0.001S",
                    "  nmws latency 10.0.0.2 --bandwidth 100M --duration PT10S --size 1472",
                    "To an OWAMP server (owampd, a router): nmws owamp DST."})
    static final class Latency extends Verb {
        @CommandLine.Mixin Frames frames = new Frames();
        @Option(names = {"-d", "--duration"}, converter = Durations.class,
                description = "send for this long instead of --count frames: seconds or ISO 8601") String duration;
        @Option(names = {"-b", "--bandwidth"}, paramLabel = "RATE",
                description = "send at this rate instead of --interval: bit/s with k, M or G (100M)") String bandwidth;

        @Override
        String characteristic() {
            return "path.delay.oneWay";
        }

        @Override
        void parameters(Map<String, String> p) {
            frames.into(p, "packetSize");
            put(p, "timeDuration", duration);
            put(p, "bandwidthLimit", bandwidth);
        }
    }

    @Command(name = "throughput", description = "Achievable throughput to DST now: TCP streams to nmprobe-responder "
            + "(with TCP_INFO samples), or a UDP stream with --udp.",
            footer = {"", "Examples:", "  nmws throughput 10.0.0.2", "  nmws throughput 10.0.0.2 --duration PT20S --parallel 4",
                    "  nmws throughput 10.0.0.2 --udp --bandwidth 500M --duration 10",
                    "  nmws throughput 10.0.0.2 --window-size 4194304 --congestion bbr"})
    static final class Throughput extends Verb {
        @Option(names = {"-t", "--duration"}, converter = Durations.class,
                description = "how long to send: seconds or ISO 8601 (TCP default 5 s)") String duration;
        @Option(names = {"-P", "--parallel", "--streams"}, description = "TCP streams at once (1..16)") Integer streams;
        @Option(names = {"-u", "--udp"}, description = "a UDP stream instead of TCP") boolean udp;
        @Option(names = {"-b", "--bandwidth"}, paramLabel = "RATE",
                description = "UDP: send at this rate, bit/s with k, M or G (500M)") String bandwidth;
        @Option(names = {"-l", "--buffer-length"}, description = "bytes per write (TCP) or per frame (UDP)") Integer bufferLength;
        @Option(names = {"-w", "--window-size"}, description = "TCP socket buffer, bytes") Integer windowSize;
        @Option(names = "--congestion", description = "TCP congestion control (cubic, bbr, ...)") String congestion;

        @Override
        String characteristic() {
            return udp ? "path.bandwidth.achievable.UDP" : "path.bandwidth.achievable.TCP";
        }

        @Override
        void parameters(Map<String, String> p) {
            if (!udp && bandwidth != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--bandwidth paces a UDP stream: add --udp");
            }
            if (udp && (streams != null || windowSize != null || congestion != null)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--parallel, --window-size and --congestion are for TCP: drop --udp or them");
            }
            put(p, "timeDuration", duration);
            put(p, "streams", streams);
            put(p, "bandwidthLimit", bandwidth);
            put(p, "bufferLength", bufferLength);
            put(p, "windowSize", windowSize);
            put(p, "congestion", congestion);
        }
    }

    @Command(name = "trace", description = "The hops to DST and each one's round trip, as traceroute finds them.",
            footer = {"", "Examples:", "  nmws trace 10.0.0.2", "  nmws trace 10.0.0.2 --max-ttl 16 --probes 1 --wait PT0.5S"})
    static final class Trace extends Verb {
        @Option(names = {"-m", "--max-ttl", "--hops"}, description = "the furthest hop to try (1..64)") Integer maxTtl;
        @Option(names = {"-q", "--probes"}, description = "probes per hop (1..10)") Integer probes;
        @Option(names = {"-W", "--wait"}, converter = Durations.class,
                description = "how long to wait for each hop: seconds or ISO 8601") String wait;
        @Option(names = {"-s", "--size"}, description = "probe bytes (32..1472)") Integer size;
        @Option(names = "--resolve", description = "name the hops (reverse DNS)") boolean resolve;

        @Override
        String characteristic() {
            return "path.hoplist";
        }

        @Override
        void parameters(Map<String, String> p) {
            put(p, "maxTtl", maxTtl);
            put(p, "probesPerHop", probes);
            put(p, "waitTime", wait);
            put(p, "packetSize", size);
            if (resolve) {
                p.put("resolve", "true");
            }
        }
    }

    /** The options of an OWAMP or TWAMP session (RFC 4656 / 5357) with a server. */
    abstract static class ControlSession extends Verb {
        @Option(names = {"-c", "--count"}, description = "test packets to send") Integer count;
        @Option(names = {"-i", "--interval"}, converter = Durations.class,
                description = "time between packets: seconds (0.1) or ISO 8601 (PT0.1S)") String interval;
        @Option(names = "--timeout", converter = Durations.class,
                description = "how long a packet may take before it counts as lost") String timeout;
        @Option(names = {"-s", "--padding"}, description = "padding bytes after the test packet's header") Integer padding;
        @Option(names = "--mode", description = "open, authenticated or encrypted (twamp: mixed too)") String mode;
        @Option(names = "--key-id", description = "the key id (in this point's key file) for a mode other than open")
        String keyId;

        @Override
        void parameters(Map<String, String> p) {
            p.put("protocol", protocol());
            put(p, "count", count);
            put(p, "interval", interval);
            put(p, "timeout", timeout);
            put(p, "packetPadding", padding);
            put(p, "mode", mode);
            put(p, "keyId", keyId);
        }

        abstract String protocol();
    }

    @Command(name = "owamp", description = "One-way delay and loss to an OWAMP server at DST (owampd, a router; TCP 861).",
            footer = {"", "Examples:", "  nmws owamp 10.0.0.2", "  nmws owamp 10.0.0.2 --count 100 --interval PT0.1S --padding 32",
                    "  nmws owamp 10.0.0.2 --mode authenticated --key-id mesh"})
    static final class Owamp extends ControlSession {
        @Override
        String characteristic() {
            return "path.delay.oneWay";
        }

        @Override
        String protocol() {
            return "OWAMP";
        }
    }

    @Command(name = "twamp", description = "Round trip, both one-way delays and loss to a TWAMP server at DST (TCP 862).",
            footer = {"", "Examples:", "  nmws twamp 10.0.0.2", "  nmws twamp 10.0.0.2 --count 100 --interval 0.05"})
    static final class Twamp extends ControlSession {
        @Override
        String characteristic() {
            return "path.delay.roundTrip";
        }

        @Override
        String protocol() {
            return "TWAMP";
        }
    }

    @Command(name = "stamp", description = "Round trip, both one-way delays and loss to a STAMP or TWAMP-Light "
            + "reflector at DST (UDP 862; routers, nmprobe-responder --stamp-port); no control session.",
            footer = {"", "Examples:", "  nmws stamp 10.0.0.2", "  nmws stamp 10.0.0.2 --count 100 --interval PT0.01S --timestamp PTP"})
    static final class Stamp extends Verb {
        @CommandLine.Mixin Frames frames = new Frames();
        @Option(names = "--ssid", description = "STAMP session id (RFC 8972), 0..65535") Integer ssid;
        @Option(names = "--timestamp", description = "NTP or PTP timestamps") String timestamp;

        @Override
        String characteristic() {
            return "path.delay.roundTrip";
        }

        @Override
        void parameters(Map<String, String> p) {
            p.put("protocol", "STAMP");
            frames.into(p, "packetSize");
            put(p, "ssid", ssid);
            put(p, "timestamp", timestamp);
        }
    }

    @Command(name = "capacity", description = "The narrowest link's capacity on the path to DST (packet trains), "
            + "or each hop's with --per-hop.",
            footer = {"", "Examples:", "  nmws capacity 10.0.0.2", "  nmws capacity 10.0.0.2 --per-hop --max-ttl 8"})
    static final class Capacity extends Verb {
        @Option(names = "--per-hop", description = "measure hop by hop (needs no responder, takes longer)") boolean perHop;
        @Option(names = "--trains", description = "packet trains to send") Integer trains;
        @Option(names = "--train-length", description = "packets in a train") Integer trainLength;
        @Option(names = {"-s", "--size"}, description = "packet bytes (200..9000)") Integer size;
        @Option(names = {"-m", "--max-ttl"}, description = "with --per-hop: the furthest hop") Integer maxTtl;

        @Override
        String characteristic() {
            return "path.bandwidth.capacity";
        }

        @Override
        void parameters(Map<String, String> p) {
            if (perHop) {
                p.put("perHop", "true");
            } else if (maxTtl != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--max-ttl is for --per-hop");
            }
            put(p, "trains", trains);
            put(p, "trainLength", trainLength);
            put(p, "packetSize", size);
            put(p, "maxTtl", maxTtl);
        }
    }
}
