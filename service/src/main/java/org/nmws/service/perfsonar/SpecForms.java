package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Set;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;

/**
 * The test spec (pScheduler's test.spec) a stored result was taken with, from its NMWG
 * parameters: the names and units of each type's spec (counts, durations as ISO 8601, ...).
 * A source is named only when the client named one: pScheduler, like nmws, reads a missing
 * source as "this host".
 */
final class SpecForms {
    /** The congestion controls pScheduler's throughput spec accepts. */
    private static final Set<String> CONGESTION = Set.of("reno", "cubic", "bic", "htcp", "vegas", "westwood", "yeah", "bbr");

    private SpecForms() {
    }

    static ObjectNode spec(Observation o, PschedulerType type) {
        ObjectNode s = ResultForms.JSON.objectNode();
        s.put("schema", 1);
        if (o.subject().src() != null) {
            s.put("source", o.subject().src().host());
        }
        s.put("dest", o.subject().dst().host());
        Map<String, String> p = o.parameters();
        switch (type) {
            case LATENCY -> {
                integer(s, "packet-count", p.get("count"));
                double interval = decimal(p.get("interval"));
                if (interval > 0) {
                    s.put("packet-interval", interval);
                }
                if (p.containsKey("timeout")) {
                    s.put("packet-timeout", (long) Math.ceil(decimal(p.get("timeout"))));
                }
            }
            case RTT -> {
                integer(s, "count", p.get("count"));
                if (p.containsKey("interval")) {
                    s.put("interval", Iso.seconds(decimal(p.get("interval"))));
                }
                integer(s, "length", p.get("packetSize"));
                if (decimal(p.get("ttl")) > 0) {
                    integer(s, "ttl", p.get("ttl"));
                }
                if (p.containsKey("timeout")) {
                    s.put("timeout", Iso.seconds(decimal(p.get("timeout"))));
                }
            }
            case THROUGHPUT -> {
                if (o.test() == ProbeTest.UDP_STREAM) {
                    s.put("udp", true);
                    if (decimal(p.get("bandwidthLimit")) > 0) {
                        integer(s, "bandwidth", p.get("bandwidthLimit"));
                    }
                    integer(s, "buffer-length", p.get("packetSize"));
                } else {
                    if (p.containsKey("timeDuration")) {
                        s.put("duration", Iso.seconds(decimal(p.get("timeDuration"))));
                    }
                    integer(s, "parallel", p.get("streams"));
                    integer(s, "buffer-length", p.get("bufferLength"));
                    if (decimal(p.get("windowSize")) > 0) {
                        integer(s, "window-size", p.get("windowSize"));
                    }
                    String cc = p.get("congestion");
                    if (cc != null && CONGESTION.contains(cc)) {
                        s.put("congestion", cc);
                    }
                }
            }
            case TRACE -> {
                integer(s, "hops", p.get("maxTtl"));
                integer(s, "queries", p.get("probesPerHop"));
                integer(s, "length", p.get("packetSize"));
                s.put("probe-type", "udp");
                if (p.containsKey("waitTime")) {
                    s.put("wait", Iso.seconds(decimal(p.get("waitTime"))));
                }
                if (p.containsKey("resolve")) {
                    s.put("hostnames", Boolean.parseBoolean(p.get("resolve")));
                }
            }
            default -> throw new IllegalStateException("no spec form for " + type);
        }
        int version = PschedulerResults.ipVersion(o);
        if (version != 0) {
            s.put("ip-version", version);
        }
        return s;
    }

    private static void integer(ObjectNode s, String name, String value) {
        if (value != null && value.trim().matches("\\d{1,18}") && Long.parseLong(value.trim()) > 0) {
            s.put(name, Long.parseLong(value.trim()));
        }
    }

    private static double decimal(String value) {
        try {
            return value == null ? 0 : Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            return 0; // stored parameters were checked when the test ran; an odd one is left out
        }
    }
}
