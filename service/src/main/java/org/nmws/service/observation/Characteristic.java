package org.nmws.service.observation;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The registry of characteristics nmws measures: the GFD.023 dotted name, the NMWG v2
 * eventType URIs clients send for it (deployed spelling variants included), and the
 * probe test that measures it. One table, so that the dialects cannot drift apart.
 */
public enum Characteristic {
    PATH_DELAY_ROUNDTRIP("path.delay.roundTrip", ProbeTest.ROUND_TRIP,
            "http://ggf.org/ns/nmwg/tools/ping/2.0/",
            "http://ggf.org/ns/nmwg/tools/pinger/2.0/",
            "http://ggf.org/ns/nmwg/characteristic/delay/roundtrip/2.0/",
            "ping"),
    PATH_DELAY_JITTER_ROUNDTRIP("path.delay.jitter.roundTrip", ProbeTest.ROUND_TRIP,
            "http://ggf.org/ns/nmwg/characteristic/delay/jitter/roundtrip/2.0/"),
    PATH_LOSS_ROUNDTRIP("path.loss.roundTrip", ProbeTest.ROUND_TRIP,
            "http://ggf.org/ns/nmwg/characteristic/loss/roundtrip/2.0/"),
    PATH_DELAY_ONEWAY("path.delay.oneWay", ProbeTest.UDP_STREAM,
            "http://ggf.org/ns/nmwg/tools/owamp/2.0",
            "http://ggf.org/ns/nmwg/characteristic/delay/one-way/20070914",
            "http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921",
            "http://ggf.org/ns/nmwg/characteristic/delay/summary/20110317", // perfSONAR-PS one-way summaries
            "owamp"),
    PATH_DELAY_JITTER_ONEWAY("path.delay.jitter.oneWay", ProbeTest.UDP_STREAM,
            "http://ggf.org/ns/nmwg/characteristic/delay/jitter/one-way/20070914"),
    PATH_LOSS_ONEWAY("path.loss.oneWay", ProbeTest.UDP_STREAM,
            "http://ggf.org/ns/nmwg/characteristic/loss/one-way/20070914"),
    PATH_REORDERING_ONEWAY("path.reordering.oneWay", ProbeTest.UDP_STREAM,
            "http://ggf.org/ns/nmwg/characteristic/reordering/one-way/20070914"),
    PATH_BANDWIDTH_ACHIEVABLE_UDP("path.bandwidth.achievable.UDP", ProbeTest.UDP_STREAM),
    /** bwctl/iperf eventTypes name achievable bandwidth of either protocol: TCP unless protocol=UDP. */
    PATH_BANDWIDTH_ACHIEVABLE_TCP("path.bandwidth.achievable.TCP", ProbeTest.TCP_STREAM,
            "http://ggf.org/ns/nmwg/tools/iperf/2.0",
            "http://ggf.org/ns/nmwg/tools/bwctl/2.0",
            "http://ggf.org/ns/nmwg/characteristics/bandwidth/achievable/2.0",
            "http://ggf.org/ns/nmwg/characteristics/bandwidth/acheiveable/2.0",
            "http://ggf.org/ns/nmwg/characteristics/bandwidth/achieveable/2.0",
            "http://ggf.org/ns/nmwg/characteristic/bandwidth/achievable/2.0",
            "http://ggf.org/ns/nmwg/characteristic/bandwidth/acheiveable/2.0",
            "http://ggf.org/ns/nmwg/characteristic/bandwidth/achieveable/2.0",
            "bwctl", "iperf"),
    PATH_BANDWIDTH_ACHIEVABLE_TCP_MULTISTREAM("path.bandwidth.achievable.TCP.multiStream", ProbeTest.TCP_STREAM),
    PATH_BANDWIDTH_UTILIZATION("path.bandwidth.utilization", ProbeTest.UTILIZATION,
            "http://ggf.org/ns/nmwg/characteristic/utilization/2.0",
            "http://ggf.org/ns/nmwg/characteristic/errors/2.0",
            "http://ggf.org/ns/nmwg/characteristic/discards/2.0",
            "http://ggf.org/ns/nmwg/tools/snmp/2.0", // perfSONAR's SNMP MA, asked with an interface subject
            "utilization"),
    PATH_BANDWIDTH_CAPACITY("path.bandwidth.capacity", ProbeTest.CAPACITY,
            "http://ggf.org/ns/nmwg/characteristic/bandwidth/capacity/2.0"),
    PATH_BANDWIDTH_AVAILABLE("path.bandwidth.available", ProbeTest.AVAILABLE,
            "http://ggf.org/ns/nmwg/characteristic/bandwidth/available/2.0"),
    PATH_HOPLIST("path.hoplist", ProbeTest.HOP_LIST,
            "http://ggf.org/ns/nmwg/tools/traceroute/2.0",
            "http://ggf.org/ns/nmwg/characteristic/hoplist/2.0",
            "traceroute");

    /** The probe test that yields a characteristic. */
    public enum ProbeTest {
        ROUND_TRIP("ROUND_TRIP"),
        LATENCY_SCAN("LATENCY_SCAN"),
        UDP_STREAM("UDP_STREAM"),
        TCP_STREAM("TCP_STREAM"),
        HOP_LIST("HOP_LIST"),
        UTILIZATION("UTILIZATION"),
        CAPACITY("CAPACITY"),
        HOP_CAPACITY("HOP_CAPACITY"),
        AVAILABLE("AVAILABLE"),
        STAMP("STAMP"),
        OWAMP("OWAMP"),
        TWAMP("TWAMP");

        private static final Map<String, ProbeTest> BY_KEY = new java.util.HashMap<>();

        static {
            for (ProbeTest t : values()) {
                BY_KEY.put(t.key, t);
            }
        }

        private final String key;

        /**
         * @param key the test's name in the archive, series keys and exports: fixed here, so
         *     that renaming a constant never orphans stored results
         */
        ProbeTest(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        /** The test stored under a key; IllegalArgumentException for a key no test has. */
        public static ProbeTest ofKey(String key) {
            ProbeTest t = BY_KEY.get(key);
            if (t == null) {
                throw new IllegalArgumentException("no test is stored as '" + key + "'");
            }
            return t;
        }
    }

    private final String dottedName;
    private final ProbeTest test;
    private final List<String> eventTypes;

    Characteristic(String dottedName, ProbeTest test, String... eventTypes) {
        this.dottedName = dottedName;
        this.test = test;
        this.eventTypes = List.of(eventTypes);
    }

    public String dottedName() {
        return dottedName;
    }

    public ProbeTest test() {
        return test;
    }

    /**
     * The test that answers a request for this characteristic with these parameters: a
     * round trip over a list of frame sizes (parameter packetSizes) is a latency scan, and
     * achievable bandwidth named by a bwctl/iperf eventType with protocol=UDP is a UDP stream,
     * and capacity with perHop=true is measured hop by hop (Trace-Rate's way), and delay or
     * loss with protocol=STAMP (or TWAMP-Light) is measured to a standard reflector, with
     * protocol=OWAMP to an OWAMP server (one way) and with protocol=TWAMP to a TWAMP server.
     */
    public ProbeTest testFor(java.util.Map<String, String> parameters) {
        if (test == ProbeTest.ROUND_TRIP && parameters.containsKey("packetSizes")) {
            return ProbeTest.LATENCY_SCAN;
        }
        if (this == PATH_BANDWIDTH_ACHIEVABLE_TCP && "UDP".equalsIgnoreCase(parameters.getOrDefault("protocol", "").trim())) {
            return ProbeTest.UDP_STREAM;
        }
        if (test == ProbeTest.CAPACITY && Params.bool(parameters, "perHop")) {
            return ProbeTest.HOP_CAPACITY;
        }
        String protocol = parameters.getOrDefault("protocol", "").trim();
        if (("STAMP".equalsIgnoreCase(protocol) || "TWAMP-Light".equalsIgnoreCase(protocol))
                && answeredBy(ProbeTest.STAMP).contains(this)) {
            return ProbeTest.STAMP;
        }
        if ("TWAMP".equalsIgnoreCase(protocol) && answeredBy(ProbeTest.TWAMP).contains(this)) {
            return ProbeTest.TWAMP;
        }
        if ("OWAMP".equalsIgnoreCase(protocol) && answeredBy(ProbeTest.OWAMP).contains(this)) {
            return ProbeTest.OWAMP;
        }
        return test;
    }

    /** The eventType to answer with when a client named none: the first URI, else the dotted name. */
    public String preferredEventType() {
        return eventTypes.isEmpty() ? dottedName : eventTypes.get(0);
    }

    /** The characteristics a test answers (a latency scan is a round trip over sizes). */
    public static java.util.List<Characteristic> answeredBy(ProbeTest t) {
        if (t == ProbeTest.OWAMP) { // one way only: the receiver's records fetched back
            return List.of(PATH_DELAY_ONEWAY, PATH_DELAY_JITTER_ONEWAY, PATH_LOSS_ONEWAY, PATH_REORDERING_ONEWAY);
        }
        if (t == ProbeTest.STAMP || t == ProbeTest.TWAMP) { // round trip and both one-way directions
            return List.of(PATH_DELAY_ROUNDTRIP, PATH_DELAY_JITTER_ROUNDTRIP, PATH_LOSS_ROUNDTRIP, PATH_DELAY_ONEWAY,
                    PATH_DELAY_JITTER_ONEWAY, PATH_LOSS_ONEWAY);
        }
        ProbeTest base = switch (t) {
            case LATENCY_SCAN -> ProbeTest.ROUND_TRIP;
            case HOP_CAPACITY -> ProbeTest.CAPACITY;
            default -> t;
        };
        return java.util.Arrays.stream(values()).filter(c -> c.test == base).toList();
    }

    /** The eventType URIs that name this characteristic, preferred first. */
    public List<String> eventTypes() {
        return eventTypes;
    }

    private static final Map<String, Characteristic> BY_NAME = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

    static {
        for (Characteristic c : values()) {
            BY_NAME.put(c.dottedName, c);
            for (String uri : c.eventTypes) {
                BY_NAME.put(normalize(uri), c);
            }
        }
    }

    /** Lenient lookup by dotted name or eventType URI (trailing slash optional). */
    public static Optional<Characteristic> lookup(String eventType) {
        if (eventType == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(BY_NAME.get(normalize(eventType.trim())));
    }

    private static String normalize(String uri) {
        String u = uri.toLowerCase(Locale.ROOT);
        return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
    }
}
