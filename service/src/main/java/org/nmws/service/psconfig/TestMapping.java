package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pScheduler test (type and spec, template variables already filled in) as an nmws
 * characteristic with its NMWG parameters. A spec field nmws cannot honour makes the test
 * not runnable (with the field named), never silently dropped, as NMWG parameters are
 * (issue 20). Fields that say nothing about what is measured (schema, hostnames shown,
 * *-node) are accepted.
 */
final class TestMapping {
    /** Spec fields accepted by every test type: they name or label, they do not change the measurement. */
    private static final Set<String> HARMLESS = Set.of("schema", "source", "dest", "source-node", "dest-node", "ip-version",
            "flip"); // flip true is refused before mapping

    /** pScheduler's tools for each test type that nmws's own test stands in for. */
    static final Map<String, Set<String>> TOOLS = Map.of(
            "rtt", Set.of("ping", "twping"),
            "latency", Set.of("owping", "twping", "halfping"),
            "latencybg", Set.of("powstream", "halfping"),
            "throughput", Set.of("iperf3", "iperf2", "nuttcp", "ethr"),
            "trace", Set.of("traceroute", "paris-traceroute", "tracepath"));

    /** A test nmws can run: the characteristic, its parameters, whether continuous, and notes on the mapping. */
    record Mapped(String characteristic, Map<String, String> parameters, boolean continuous, List<String> notes) {
    }

    /** Why a test cannot run here. */
    static final class NotRunnable extends Exception {
        NotRunnable(String reason) {
            super(reason);
        }
    }

    private TestMapping() {
    }

    /** The pScheduler tools nmws runs as themselves, by their protocol: the far end is then any perfSONAR host. */
    static final Map<String, String> STANDARD_TOOLS = Map.of("owping", "OWAMP", "powstream", "OWAMP", "twping", "TWAMP");

    static Mapped map(String type, JsonNode spec, int port) throws NotRunnable {
        return map(type, spec, port, null);
    }

    /**
     * @param port the destination's responder port (from its address's _meta "nmws-responder-port"), 0 for the default
     * @param tool the task's preferred tool among those nmws stands in for, or null: owping, powstream and twping
     *     run OWAMP or TWAMP to the far end's owampd or twampd, as pScheduler would; the others run nmws's own test
     * @throws NotRunnable for a test type nmws has no kind for, or a spec field it cannot honour
     */
    static Mapped map(String type, JsonNode spec, int port, String tool) throws NotRunnable {
        String standard = tool == null ? null : STANDARD_TOOLS.get(tool);
        Map<String, String> p = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        Map<String, String> names;
        String characteristic;
        boolean continuous = false;
        boolean usesPort = true;
        switch (type) {
            case "rtt" -> {
                characteristic = "path.delay.roundTrip";
                names = Map.of("count", "count", "interval", "interval", "length", "packetSize", "ttl", "ttl",
                        "timeout", "timeout");
                if ("TWAMP".equals(standard)) {
                    names = Map.of("count", "count", "interval", "interval", "ttl", "ttl", "timeout", "timeout");
                    p.put("protocol", "TWAMP");
                    usesPort = false;
                    notes.add("round trips by TWAMP (twping's protocol) to the far end's twampd");
                    if (spec.has("protocol") && !text(spec, "protocol", "udp").equals("udp")) {
                        throw new NotRunnable("rtt protocol " + text(spec, "protocol", "") + ": twping measures over UDP");
                    }
                    break;
                }
                String protocol = text(spec, "protocol", "icmp");
                if (!protocol.equals("icmp") && !protocol.equals("udp")) {
                    throw new NotRunnable("rtt protocol " + protocol + ": nmws measures round trips over UDP to its responder");
                }
                notes.add("round trips over UDP to nmws's responder (pScheduler's ping uses ICMP)");
            }
            case "latency", "latencybg" -> {
                characteristic = "path.delay.oneWay";
                names = Map.of("packet-count", "count", "packet-interval", "interval", "packet-padding", "packetSize",
                        "packet-timeout", "timeout");
                continuous = type.equals("latencybg");
                if (standard != null) {
                    names = Map.of("packet-count", "count", "packet-interval", "interval", "packet-padding", "packetPadding",
                            "packet-timeout", "timeout");
                    p.put("protocol", standard);
                    usesPort = false;
                    notes.add("one-way latency by " + standard + " (" + tool + "'s protocol) to the far end's "
                            + (standard.equals("OWAMP") ? "owampd" : "twampd"));
                }
                if (continuous) {
                    notes.add("continuous one-way latency kept a minute at a time (powstream's sessions)");
                }
            }
            case "throughput" -> {
                boolean udp = spec.path("udp").asBoolean(false);
                characteristic = udp ? "path.bandwidth.achievable.UDP" : "path.bandwidth.achievable.TCP";
                names = udp ? Map.of("duration", "timeDuration", "bandwidth", "bandwidthLimit", "buffer-length", "packetSize")
                        : Map.of("duration", "timeDuration", "parallel", "streams", "window-size", "windowSize",
                                "buffer-length", "bufferLength", "congestion", "congestion", "interval", "sampleInterval");
                if (spec.path("reverse").asBoolean(false)) {
                    throw new NotRunnable("throughput reverse: nmws sends from this point only; the far end cannot be made to send");
                }
            }
            case "trace" -> {
                characteristic = "path.hoplist";
                names = Map.of("hops", "maxTtl", "queries", "probesPerHop", "wait", "waitTime", "length", "packetSize",
                        "hostnames", "resolve");
                usesPort = false;
                String probe = text(spec, "probe-type", "udp");
                if (!probe.equals("udp")) {
                    throw new NotRunnable("trace probe-type " + probe + ": nmws's hop list probes with UDP only");
                }
                if (spec.has("first-ttl") && spec.get("first-ttl").asInt() != 1) {
                    throw new NotRunnable("trace first-ttl " + spec.get("first-ttl") + ": nmws's hop list starts at TTL 1");
                }
            }
            case "dns", "http", "snmpget", "snmpgetbgm", "snmpset", "snmpwalk", "s3throughput", "dhcp", "idle", "idlebgm",
                 "idleex", "clock", "netreach", "wifibssid", "psresponse", "openports", "mtu", "disk-to-disk" ->
                    throw new NotRunnable("test type " + type + " has no nmws kind (nmws measures rtt, latency, latencybg, "
                            + "throughput and trace)");
            default -> throw new NotRunnable("test type " + type + " is not known to nmws (it measures rtt, latency, "
                    + "latencybg, throughput and trace)");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = spec.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            String field = f.getKey();
            if (HARMLESS.contains(field) || field.equals("protocol") && type.equals("rtt") || field.equals("udp")
                    && type.equals("throughput") || field.equals("probe-type") && type.equals("trace")
                    || field.equals("first-ttl") && type.equals("trace") || field.equals("reverse") && type.equals("throughput")) {
                continue;
            }
            String nmwg = names.get(field);
            if (nmwg == null) {
                throw new NotRunnable(type + " spec field " + field + " is not one nmws can honour (it reads "
                        + String.join(", ", new java.util.TreeSet<>(names.keySet())) + ")");
            }
            p.put(nmwg, value(type, field, nmwg, f.getValue()));
        }
        if (continuous && p.containsKey("count")) {
            notes.add("packet-count " + p.remove("count") + " not used: a session is a minute of packet-interval");
        }
        if (port > 0 && usesPort) {
            p.put("port", Integer.toString(port));
        }
        return new Mapped(characteristic, p, continuous, notes);
    }

    /** A spec value in NMWG's terms: durations as seconds, owamp's padding as the whole UDP payload, sizes as numbers. */
    private static String value(String type, String field, String nmwg, JsonNode v) throws NotRunnable {
        try {
            if (field.equals("packet-padding") && nmwg.equals("packetSize")) {
                return Integer.toString(v.asInt() + 14); // owamp's unauthenticated test packet is 14 bytes before padding
            }
            boolean iso = type.equals("rtt") && (field.equals("interval") || field.equals("timeout"))
                    || field.equals("duration") || field.equals("wait") || type.equals("throughput") && field.equals("interval");
            if (iso) {
                return Durations.seconds(Durations.parse(type + " " + field, v.asText()));
            }
            if (v.isNumber()) {
                return new BigDecimal(v.asText()).stripTrailingZeros().toPlainString();
            }
            if (v.isBoolean() || v.isTextual()) {
                return v.asText();
            }
        } catch (IllegalArgumentException e) {
            throw new NotRunnable(e.getMessage());
        }
        throw new NotRunnable(type + " spec field " + field + " is " + v.getNodeType() + ", not a value nmws can pass on");
    }

    private static String text(JsonNode spec, String field, String dflt) {
        return spec.has(field) ? spec.get(field).asText().toLowerCase(java.util.Locale.ROOT) : dflt;
    }
}
