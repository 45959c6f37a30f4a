package org.nmws.service.xmlrpc;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.cost.TransferCost;
import org.nmws.service.measure.Caller;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Times;
import org.nmws.service.transport.Dialects;
import org.nmws.service.usecase.TransferCosts;
import org.nmws.service.v1.V1Fault;
import org.nmws.service.v1.V1Outcome;
import org.nmws.service.v1.V1Request;
import org.nmws.service.v1.V1Service;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * The XML-RPC methods, as the first NM-WG proof-of-concept services offered them.
 * NetworkMeasurementRequest asks what a v1 request asks, so it is decoded into a
 * {@link V1Request} and answered by the same core; nmwg.message carries a whole NMWG
 * (or v1) document through the same dialect routing as plain HTTP.
 */
public class XmlRpcMethods {
    static final Map<String, String> HELP = new LinkedHashMap<>();

    static {
        HELP.put("NetworkMeasurementRequest", "NetworkMeasurementRequest(struct request) -> struct. request: {characteristic:"
                + " string (GFD.023 dotted name, e.g. path.delay.roundTrip), subject: {path: {source: {name}, destination:"
                + " {name}}} or {node: {name}}, methodology: {tool: {name}, parameters: struct}, startTime, endTime:"
                + " dateTime.iso8601 or unix seconds, statistics: array of string, maxResults: int,"
                + " allowNewMeasurements: boolean}. Returns {characteristic, subject, newMeasurement, results: array of"
                + " {tool, toolVersion, startTime, endTime, parameters, statistics, units, environment, maKey}}."
                + " Faults: 1 NoData, 2 Communication, 3 System, 4 Authorisation, 5 Request, 6 Discovery, 7 TryAgain.");
        HELP.put("nmwg.message", "nmwg.message(string xml) -> string. Answers a whole NMWG v2 message (or a GGF v1"
                + " networkMeasurementRequest) exactly as POST /nmwg does and returns the response document.");
        HELP.put("nmws.cost", "nmws.cost(struct request) -> array of struct. request: {[src: string,] destinations: array of string,"
                + " bytes: double, maxAgeSeconds: int (default 86400), refresh: boolean (measure stale destinations first),"
                + " timeBudgetSeconds: int (default 30), streams: int}. Returns the destinations ranked by the estimated"
                + " time to move that many bytes from this point (or src): {src, dst, bytes, seconds, rateMbps, basis,"
                + " measuredAt, rttMs, lossPercent, predictor, expectedErrorPercent, samples, ageSeconds, refreshed, note}"
                + " (members without a value left out)."
                + " Faults: 5 Request.");
        HELP.put("system.listMethods", "system.listMethods() -> array of string. The methods this server answers.");
        HELP.put("system.methodHelp", "system.methodHelp(string name) -> string. What a method takes and returns.");
    }

    private final V1Service v1;
    private final Dialects dialects;
    private final TransferCosts costs;

    public XmlRpcMethods(V1Service v1, Dialects dialects, TransferCosts costs) {
        this.v1 = v1;
        this.dialects = dialects;
        this.costs = costs;
    }

    public Object call(XmlRpcCodec.Call call, Caller caller) throws XmlRpcCodec.Fault {
        List<Object> p = call.params();
        return switch (call.method()) {
            case "system.listMethods" -> {
                arity(call, 0);
                yield new ArrayList<>(HELP.keySet());
            }
            case "system.methodHelp" -> {
                arity(call, 1);
                String name = string(p.get(0), "method name");
                String help = HELP.get(name);
                if (help == null) {
                    throw new XmlRpcCodec.Fault(XmlRpcCodec.METHOD_NOT_FOUND, "no method '" + name + "'");
                }
                yield help;
            }
            case "nmwg.message" -> {
                arity(call, 1);
                Object m = p.get(0);
                byte[] xml = m instanceof byte[] b ? b : string(m, "NMWG message").getBytes(StandardCharsets.UTF_8);
                try {
                    yield new String(dialects.handle(xml, caller), StandardCharsets.UTF_8);
                } catch (org.nmws.service.transport.Dialects.ClientError e) {
                    throw new XmlRpcCodec.Fault(5, e.getMessage());
                }
            }
            case "nmws.cost" -> {
                arity(call, 1);
                yield cost(struct(p.get(0), "request"), caller);
            }
            case "NetworkMeasurementRequest" -> {
                arity(call, 1);
                yield measurementRequest(struct(p.get(0), "request"), caller);
            }
            default -> throw new XmlRpcCodec.Fault(XmlRpcCodec.METHOD_NOT_FOUND, "no method '" + call.method()
                    + "'; system.listMethods lists " + HELP.keySet());
        };
    }

    private Map<String, Object> measurementRequest(Map<String, Object> s, Caller caller) throws XmlRpcCodec.Fault {
        V1Outcome o;
        try {
            o = v1.execute(request(s), caller);
        } catch (V1Fault f) {
            throw fault(f);
        }
        if (o.fault() != null) {
            throw fault(o.fault());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("characteristic", o.request().characteristic());
        out.put("subject", subject(o.request().subject()));
        out.put("newMeasurement", o.newMeasurement());
        List<Object> results = new ArrayList<>();
        for (V1Outcome.Measurement m : o.measurements()) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("tool", m.tool());
            if (m.toolVersion() != null) {
                r.put("toolVersion", m.toolVersion());
            }
            if (m.start() != null) {
                r.put("startTime", m.start());
                r.put("endTime", m.end());
            }
            r.put("parameters", new LinkedHashMap<>(m.parameters()));
            r.put("statistics", new LinkedHashMap<>(m.statistics()));
            r.put("units", new LinkedHashMap<>(m.units()));
            if (m.environment() != null) {
                r.put("environment", struct(m.environment()));
            }
            if (m.maKey() != null) {
                r.put("maKey", m.maKey());
            }
            if (m.pending()) {
                r.put("pending", true); // held while the archive was down; maKey finds it once written
            }
            results.add(r);
        }
        out.put("results", results);
        return out;
    }

    /** The struct as a v1 request; what is malformed is a Request fault naming the member. */
    static V1Request request(Map<String, Object> s) throws V1Fault {
        Object c = s.get("characteristic");
        if (!(c instanceof String characteristic) || characteristic.isBlank()) {
            throw new V1Fault(V1Fault.Kind.Request, "member characteristic (string) is missing");
        }
        if (!(s.get("subject") instanceof Map<?, ?> subject)) {
            throw new V1Fault(V1Fault.Kind.Request, "member subject (struct with path or node) is missing");
        }
        PathSubject path;
        try {
            if (subject.get("path") instanceof Map<?, ?> p) {
                Object dst = p.get("destination");
                if (dst == null) {
                    throw new V1Fault(V1Fault.Kind.Request, "subject.path has no destination");
                }
                Object src = p.get("source");
                path = new PathSubject(src == null ? null : node(src, "subject.path.source"), node(dst, "subject.path.destination"));
            } else if (subject.get("node") != null) {
                path = new PathSubject(null, node(subject.get("node"), "subject.node"));
            } else {
                throw new V1Fault(V1Fault.Kind.Request, "subject has neither path nor node");
            }
        } catch (IllegalArgumentException e) {
            throw new V1Fault(V1Fault.Kind.Request, "subject: " + e.getMessage());
        }
        String tool = null;
        Map<String, String> params = new LinkedHashMap<>();
        if (s.get("methodology") instanceof Map<?, ?> m) {
            Object t = m.get("tool");
            tool = t instanceof Map<?, ?> tm && tm.get("name") instanceof String n ? n : t instanceof String n ? n : null;
            if (m.get("parameters") instanceof Map<?, ?> ps) {
                for (Map.Entry<?, ?> e : ps.entrySet()) {
                    params.put(String.valueOf(e.getKey()), scalarText(e.getValue(), "methodology.parameters." + e.getKey()));
                }
            }
        }
        Instant from = time(s.get("startTime"), "startTime");
        Instant to = time(s.get("endTime"), "endTime");
        if (from != null && to != null && from.isAfter(to)) {
            throw new V1Fault(V1Fault.Kind.Request, "startTime " + from + " is after endTime " + to);
        }
        List<String> statistics = new ArrayList<>();
        if (s.get("statistics") instanceof List<?> l) {
            for (Object o : l) {
                statistics.add(String.valueOf(o));
            }
        }
        int maxResults = V1Request.UNBOUNDED;
        if (s.get("maxResults") instanceof Integer n) {
            if (n < 1) {
                throw new V1Fault(V1Fault.Kind.Request, "maxResults must be >= 1, was " + n);
            }
            maxResults = Math.min(n, V1Request.UNBOUNDED);
        }
        boolean allowNew = allowNew(s.get("allowNewMeasurements"));
        return new V1Request(characteristic.trim(), path, tool, from, to, params, List.copyOf(statistics), maxResults, allowNew);
    }

    private static Endpoint node(Object o, String where) throws V1Fault {
        String name = o instanceof Map<?, ?> m ? (m.get("name") instanceof String n ? n
                : m.get("address") instanceof String a ? a : null) : o instanceof String s ? s : null;
        if (name == null) {
            throw new V1Fault(V1Fault.Kind.Request, where + " needs a name (string)");
        }
        return Endpoint.parse(name, null);
    }

    /** dateTime.iso8601, unix seconds (int or double) or an ISO 8601 string. */
    private static Instant time(Object o, String what) throws V1Fault {
        if (o == null) {
            return null;
        }
        // One parser for every dialect (Times): a number is written out as unix seconds first.
        if (!(o instanceof Instant || o instanceof Number || o instanceof String)) {
            throw new V1Fault(V1Fault.Kind.Request, what + " must be a dateTime.iso8601, unix seconds or an ISO 8601 string");
        }
        try {
            String text = o instanceof Double || o instanceof Float
                    ? new java.math.BigDecimal(((Number) o).doubleValue()).setScale(9, java.math.RoundingMode.HALF_UP)
                            .stripTrailingZeros().toPlainString()
                    : o.toString();
            return Times.parse(what, text);
        } catch (IllegalArgumentException e) { // NaN or infinity (NumberFormatException) too
            throw new V1Fault(V1Fault.Kind.Request, what + " must be a dateTime.iso8601, unix seconds or an ISO 8601 string: "
                    + e.getMessage());
        }
    }

    private static String scalarText(Object v, String where) throws V1Fault {
        if (v instanceof String || v instanceof Number || v instanceof Boolean) {
            return String.valueOf(v);
        }
        throw new V1Fault(V1Fault.Kind.Request, where + " must be a string or number");
    }

    private static Map<String, Object> subject(PathSubject p) {
        Map<String, Object> path = new LinkedHashMap<>();
        if (p.src() != null) {
            path.put("source", Map.of("name", p.src().host()));
        }
        path.put("destination", Map.of("name", p.dst().host()));
        return Map.of("path", path);
    }

    /**
     * An element as a struct: attributes as string members, child elements as structs; a
     * child name that can repeat (host) is always an array, so clients need not guess.
     */
    static Map<String, Object> struct(Element e) {
        Map<String, Object> m = new LinkedHashMap<>();
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (a.getName().startsWith("xmlns")) {
                continue;
            }
            m.put(a.getLocalName() != null ? a.getLocalName() : a.getName(), a.getValue());
        }
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeType() != Node.ELEMENT_NODE) {
                continue;
            }
            Element c = (Element) n;
            String name = c.getLocalName();
            if (name.equals("host")) {
                @SuppressWarnings("unchecked")
                List<Object> hosts = (List<Object>) m.computeIfAbsent("host", k -> new ArrayList<>());
                hosts.add(struct(c));
            } else {
                m.put(name, struct(c));
            }
        }
        return m;
    }

    private static XmlRpcCodec.Fault fault(V1Fault f) {
        String text = f.kind() + ": " + f.getMessage();
        if (f.kind() == V1Fault.Kind.TryAgain) {
            text += " (retry after " + (long) f.delaySeconds() + " s)";
        }
        return new XmlRpcCodec.Fault(f.kind().code, text);
    }

    /** nmws.cost: the same ranking as GET /api/cost. */
    private List<Map<String, Object>> cost(Map<String, Object> r, Caller caller) throws XmlRpcCodec.Fault {
        if (!(r.get("destinations") instanceof List<?> dsts) || dsts.stream().anyMatch(d -> !(d instanceof String))) {
            throw new XmlRpcCodec.Fault(5, "destinations must be an array of strings");
        }
        if (!(r.get("bytes") instanceof Number bytes)) {
            throw new XmlRpcCodec.Fault(5, "bytes must be a number");
        }
        Object age = r.getOrDefault("maxAgeSeconds", 86_400);
        if (!(age instanceof Integer seconds)) {
            throw new XmlRpcCodec.Fault(5, "maxAgeSeconds must be an int");
        }
        Object src = r.get("src");
        Object refresh = r.getOrDefault("refresh", Boolean.FALSE);
        Object budget = r.getOrDefault("timeBudgetSeconds", 30);
        Object streams = r.getOrDefault("streams", 1);
        if ((src != null && !(src instanceof String)) || !(refresh instanceof Boolean)
                || !(budget instanceof Integer) || !(streams instanceof Integer)) {
            throw new XmlRpcCodec.Fault(5, "src must be a string, refresh a boolean, timeBudgetSeconds and streams ints");
        }
        List<TransferCost> ranked;
        try {
            ranked = costs.rank(caller, new org.nmws.service.cost.CostQuery((String) src, dsts.stream().map(String.class::cast).toList(),
                    bytes.doubleValue(), java.time.Duration.ofSeconds(seconds), (Boolean) refresh,
                    java.time.Duration.ofSeconds((Integer) budget), (Integer) streams, null,
                    r.get("protocol") instanceof String proto ? proto : null));
        } catch (IllegalArgumentException e) {
            throw new XmlRpcCodec.Fault(5, e.getMessage());
        } catch (org.nmws.service.measure.MeasurementException e) {
            throw fault(v1.fault(e.kind(), e.getMessage()));
        }
        List<Map<String, Object>> out = new java.util.ArrayList<>();
        for (TransferCost c : ranked) {
            Map<String, Object> m = new LinkedHashMap<>();
            putIf(m, "src", c.src());
            m.put("dst", c.dst());
            m.put("bytes", (double) c.bytes());
            putIf(m, "seconds", c.seconds());
            putIf(m, "rateMbps", c.rateMbps());
            m.put("basis", c.basis());
            putIf(m, "measuredAt", c.measuredAt());
            putIf(m, "rttMs", c.rttMs());
            putIf(m, "lossPercent", c.lossPercent());
            putIf(m, "predictor", c.predictor());
            putIf(m, "expectedErrorPercent", c.expectedErrorPercent());
            m.put("samples", c.samples());
            putIf(m, "ageSeconds", c.ageSeconds() == null ? null : c.ageSeconds().doubleValue());
            m.put("refreshed", c.refreshed());
            putIf(m, "note", c.note());
            out.add(m);
        }
        return out;
    }

    /** XML-RPC has no nil: a member without a value is left out. */
    private static void putIf(Map<String, Object> m, String name, Object v) {
        if (v != null) {
            m.put(name, v);
        }
    }

    private static void arity(XmlRpcCodec.Call call, int n) throws XmlRpcCodec.Fault {
        if (call.params().size() != n) {
            throw new XmlRpcCodec.Fault(XmlRpcCodec.INVALID_PARAMS, call.method() + " takes " + n + " parameter"
                    + (n == 1 ? "" : "s") + ", got " + call.params().size());
        }
    }

    private static String string(Object o, String what) throws XmlRpcCodec.Fault {
        if (o instanceof String s) {
            return s;
        }
        throw new XmlRpcCodec.Fault(XmlRpcCodec.INVALID_PARAMS, what + " must be a string");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> struct(Object o, String what) throws XmlRpcCodec.Fault {
        if (o instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new XmlRpcCodec.Fault(XmlRpcCodec.INVALID_PARAMS, what + " must be a struct");
    }

    /**
     * allowNewMeasurements as a boolean, or as the strings "true"/"false"/"1"/"0" some clients
     * send; absent means true. Anything else is refused, never read as true.
     */
    private static boolean allowNew(Object v) throws V1Fault {
        if (v == null) {
            return true;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s) {
            switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "true", "1" -> {
                    return true;
                }
                case "false", "0" -> {
                    return false;
                }
                default -> { }
            }
        }
        throw new V1Fault(V1Fault.Kind.Request, "allowNewMeasurements must be a boolean (true or false)");
    }
}
