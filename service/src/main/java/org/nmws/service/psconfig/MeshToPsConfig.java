package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.mesh.Mesh;

/**
 * nmws's own mesh file as a pSConfig template (issue 23 item 1: the mesh file keeps working,
 * or converts to pSConfig by a command): the points as addresses (a responder port of their own
 * in _meta "nmws-responder-port", as the planner reads it), each group as a test, a schedule
 * and a task over a mesh group (every ordered pair) or, for listed pairs, a disjoint
 * unidirectional group per source. The mapping is TestMapping's read backwards, so the template
 * plans to the same schedules on each point; a group it cannot express (a characteristic
 * without a pSConfig test type, a parameter without a spec field) is left out and listed, in
 * the answer and in the template's _meta "nmws-not-converted".
 */
public final class MeshToPsConfig {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** The template and the groups left out, each "group: why". */
    public record Converted(ObjectNode template, List<String> notConverted) {
    }

    private MeshToPsConfig() {
    }

    public static Converted convert(Mesh mesh) {
        ObjectNode t = JSON.objectNode();
        List<String> left = new ArrayList<>();
        ObjectNode addresses = t.putObject("addresses");
        for (Mesh.Point p : mesh.points()) {
            ObjectNode a = addresses.putObject(p.name()).put("address", p.address());
            if (p.responderPort() > 0) {
                a.putObject("_meta").put("nmws-responder-port", p.responderPort());
            }
        }
        ObjectNode groups = t.putObject("groups");
        ObjectNode tests = t.putObject("tests");
        ObjectNode schedules = t.putObject("schedules");
        ObjectNode tasks = t.putObject("tasks");
        for (Mesh.Group g : mesh.groups()) {
            ObjectNode test;
            try {
                test = test(g);
            } catch (IllegalArgumentException why) {
                left.add(g.name() + ": " + why.getMessage());
                continue;
            }
            tests.set(g.name(), test);
            ObjectNode task = tasks.putObject(g.name()).put("test", g.name());
            if (!Boolean.TRUE.equals(g.continuous())) {
                ObjectNode s = schedules.putObject(g.name()).put("repeat", iso(g.period()));
                if (g.slip() != null) {
                    // the mesh file's slip is drawn per run within it, as pScheduler's sliprand
                    s.put("slip", iso(g.slip())).put("sliprand", true);
                }
                task.put("schedule", g.name());
            }
            if (g.pairs() == null) {
                ArrayNode members = groups.putObject(g.name()).put("type", "mesh").putArray("addresses");
                mesh.points().forEach(p -> members.addObject().put("name", p.name()));
                task.put("group", g.name());
            } else {
                // pSConfig has no group of listed pairs: a disjoint one-way group per source, a task each
                Map<String, List<String>> bySource = new LinkedHashMap<>();
                for (List<String> pair : g.pairs()) {
                    bySource.computeIfAbsent(pair.get(0), k -> new ArrayList<>()).add(pair.get(1));
                }
                tasks.remove(g.name());
                for (Map.Entry<String, List<String>> e : bySource.entrySet()) {
                    String name = g.name() + "-from-" + e.getKey();
                    ObjectNode d = groups.putObject(name).put("type", "disjoint").put("unidirectional", true);
                    d.putArray("a-addresses").addObject().put("name", e.getKey());
                    ArrayNode b = d.putArray("b-addresses");
                    e.getValue().forEach(dst -> b.addObject().put("name", dst));
                    ObjectNode each = tasks.putObject(name).put("group", name).put("test", g.name());
                    if (task.has("schedule")) {
                        each.put("schedule", g.name());
                    }
                }
            }
        }
        if (!left.isEmpty()) {
            ArrayNode why = t.putObject("_meta").putArray("nmws-not-converted");
            left.forEach(why::add);
        }
        return new Converted(t, List.copyOf(left));
    }

    /** A period or slip as the mesh file takes it (ISO 8601 or seconds) as pSConfig's ISO 8601. */
    private static String iso(String d) {
        return d.trim().matches("[0-9]+(\\.[0-9]+)?") ? "PT" + d.trim() + "S" : d.trim();
    }

    /** A group's characteristic and parameters as a pSConfig test; IllegalArgumentException says what has no counterpart. */
    private static ObjectNode test(Mesh.Group g) {
        Map<String, String> p = new LinkedHashMap<>(g.parameters() == null ? Map.of() : g.parameters());
        p.remove("port"); // the destination's responder port: its address's _meta
        boolean continuous = Boolean.TRUE.equals(g.continuous());
        String type;
        Map<String, String> fields; // NMWG name -> spec field
        switch (g.characteristic()) {
            case "path.delay.roundTrip" -> {
                type = "rtt";
                fields = Map.of("count", "count", "interval", "interval", "packetSize", "length", "ttl", "ttl",
                        "timeout", "timeout");
            }
            case "path.delay.oneWay" -> {
                type = continuous ? "latencybg" : "latency";
                fields = Map.of("count", "packet-count", "interval", "packet-interval", "packetSize", "packet-padding",
                        "timeout", "packet-timeout");
            }
            case "path.bandwidth.achievable.TCP" -> {
                type = "throughput";
                fields = Map.of("timeDuration", "duration", "streams", "parallel", "windowSize", "window-size",
                        "bufferLength", "buffer-length", "congestion", "congestion", "sampleInterval", "interval");
            }
            case "path.bandwidth.achievable.UDP" -> {
                type = "throughput";
                fields = Map.of("timeDuration", "duration", "bandwidthLimit", "bandwidth", "packetSize", "buffer-length");
            }
            case "path.hoplist" -> {
                type = "trace";
                fields = Map.of("maxTtl", "hops", "probesPerHop", "queries", "waitTime", "wait", "packetSize", "length",
                        "resolve", "hostnames");
            }
            default -> throw new IllegalArgumentException(g.characteristic() + " has no pSConfig test type (rtt, latency,"
                    + " latencybg, throughput and trace have nmws counterparts)");
        }
        if (continuous && !type.equals("latencybg")) {
            throw new IllegalArgumentException("a continuous " + g.characteristic() + " has no pSConfig test type");
        }
        if (g.testClass() != null) {
            throw new IllegalArgumentException("testClass " + g.testClass() + " has no pSConfig counterpart");
        }
        ObjectNode test = JSON.objectNode().put("type", type);
        ObjectNode spec = test.putObject("spec");
        if (!type.equals("trace")) {
            spec.put("source", "{% address[0] %}");
        }
        spec.put("dest", "{% address[1] %}");
        if (g.characteristic().equals("path.bandwidth.achievable.UDP")) {
            spec.put("udp", true);
        }
        for (Map.Entry<String, String> e : p.entrySet()) {
            String field = fields.get(e.getKey());
            if (field == null) {
                throw new IllegalArgumentException("parameter " + e.getKey() + " has no " + type + " spec field (it has "
                        + String.join(", ", new java.util.TreeSet<>(fields.keySet())) + ")");
            }
            if (continuous && field.equals("packet-count")) {
                continue; // a latencybg session is a minute of packet-interval, as the mesh file's continuous stream
            }
            spec.set(field, value(type, field, e.getValue()));
        }
        return test;
    }

    /** TestMapping.value backwards: seconds as ISO 8601 where pScheduler takes a duration, padding from the payload. */
    private static com.fasterxml.jackson.databind.JsonNode value(String type, String field, String nmwg) {
        BigDecimal n;
        try {
            n = new BigDecimal(nmwg.trim());
        } catch (NumberFormatException e) {
            return field.equals("hostnames") ? JSON.booleanNode(Boolean.parseBoolean(nmwg)) : JSON.textNode(nmwg);
        }
        if (field.equals("packet-padding")) {
            int padding = n.intValue() - 14; // owamp's unauthenticated test packet is 14 bytes before padding
            if (padding < 0) {
                throw new IllegalArgumentException("packetSize " + nmwg + " is under owamp's 14-byte test packet");
            }
            return JSON.numberNode(padding);
        }
        boolean iso = type.equals("rtt") && (field.equals("interval") || field.equals("timeout"))
                || field.equals("duration") || field.equals("wait") || type.equals("throughput") && field.equals("interval");
        if (iso) {
            return JSON.textNode("PT" + n.stripTrailingZeros().toPlainString() + "S");
        }
        return n.scale() <= 0 || n.stripTrailingZeros().scale() <= 0 ? JSON.numberNode(n.toBigInteger())
                : JSON.numberNode(n.stripTrailingZeros());
    }
}
