package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.Series;
import org.nmws.service.archive.SeriesQuery;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.StoredResults;

/**
 * esmond's read API (perfSONAR's measurement archive, /esmond/perfsonar/archive/) over nmws's
 * own archive, answered as perfSONAR 5 answers it from OpenSearch: every stored result is read
 * as the Logstash document it would be ({@link LogstashDocuments}), a measurement (metadata) is
 * every result with one pscheduler.test_checksum, and each event type's values and summaries
 * are read from the documents' fields as elmond reads them.
 *
 * <p>Answers are Jackson trees with esmond's field names; bad queries raise {@link Refused}
 * with esmond's status and message ({"detail": ...}). Every answer is bounded: at most
 * {@value #MAX_LIMIT} items (esmond's limit), series listings by StoredResults.MAX_SERIES,
 * a time range by StoredResults.MAX_CONSOLIDATED results, and raw frames by the answer budget.
 */
public final class Esmond {
    public static final String BASE = "/esmond/perfsonar/archive";
    static final int DEFAULT_LIMIT = 1000;
    static final int MAX_LIMIT = 10_000;
    private static final Set<String> RESERVED = Set.of("format", "limit", "offset", "dns-match-rule", "time", "time-start",
            "time-end", "time-range", "event-type", "summary-type", "summary-window");
    private static final Set<Integer> WINDOWS = Set.of(300, 3600, 86400);

    private final StoredResults stored;
    private final long maxAnswerFrames;

    public Esmond(StoredResults stored, long maxAnswerFrames) {
        this.stored = stored;
        this.maxAnswerFrames = maxAnswerFrames;
    }

    /** A query esmond refuses: the HTTP status and esmond's message. */
    public static final class Refused extends RuntimeException {
        private final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    /** One measurement: its key, the series it holds and its newest result's document. */
    private record Measurement(String key, List<Series> series, ObjectNode latest, Instant latestStart) {
    }

    /** The metadata search: every measurement matching the filters, newest first, one page. */
    public ArrayNode search(Map<String, String> q, String requestUrl) {
        int limit = integer(q, "limit", DEFAULT_LIMIT);
        int offset = integer(q, "offset", 0);
        if (limit > MAX_LIMIT) {
            throw new Refused(400, "limit parameter cannot exceed " + MAX_LIMIT);
        }
        if (limit < 0 || offset < 0) {
            throw new Refused(400, "limit and offset parameters must not be negative");
        }
        List<ObjectNode> found = new ArrayList<>();
        for (Measurement m : measurements(q)) {
            ObjectNode md = metadata(m);
            if (matches(md, m.latest(), q)) {
                found.add(md);
            }
        }
        ArrayNode out = ResultForms.JSON.arrayNode();
        int end = (int) Math.min(found.size(), (long) offset + limit);
        for (int i = offset; i < end; i++) {
            out.add(found.get(i));
        }
        if (!out.isEmpty()) {
            ObjectNode first = (ObjectNode) out.get(0);
            first.put("metadata-count-total", found.size());
            first.put("metadata-previous-page", offset == 0 ? null : page(requestUrl, q,
                    Math.max(0, offset - limit), Math.min(limit, offset)));
            first.put("metadata-next-page", offset + limit >= found.size() ? null : page(requestUrl, q, offset + limit, limit));
        }
        return out;
    }

    /** One measurement's metadata; 404 when no stored result has the key. */
    public ObjectNode metadata(String key) {
        for (Measurement m : measurements(Map.of())) {
            if (m.key().equals(key)) {
                return metadata(m);
            }
        }
        throw new Refused(404, "Unable to find metadata with key " + key);
    }

    /**
     * The values of one event type of one measurement, oldest first: base data, or a summary
     * (statistics with window 0 per result; aggregations, averages and statistics over epoch-aligned
     * windows of 300, 3600 or 86400 s).
     */
    public ArrayNode data(String key, String eventType, String summaryType, String window, Map<String, String> q) {
        int w;
        try {
            w = Integer.parseInt(window);
        } catch (NumberFormatException e) {
            throw new Refused(400, "Summary window must be an int");
        }
        if (!Set.of("base", "aggregations", "statistics", "averages").contains(summaryType)) {
            throw new Refused(400, "Invalid summary type " + summaryType);
        }
        if (w < 0 || (w > 0 && !WINDOWS.contains(w)) || (summaryType.equals("base") && w != 0)) {
            throw new Refused(400, w + " is not a supported summary_window");
        }
        if (!EsmondEventTypes.KNOWN.contains(eventType)) {
            throw new Refused(400, "Invalid event-type " + eventType);
        }
        int limit = integer(q, "limit", DEFAULT_LIMIT);
        int offset = integer(q, "offset", 0);
        if (limit > MAX_LIMIT) {
            throw new Refused(400, "limit parameter cannot exceed " + MAX_LIMIT);
        }
        if (limit < 0 || offset < 0) {
            throw new Refused(400, "limit and offset parameters must not be negative");
        }
        Instant[] range = timeRange(q);
        Measurement m = measurements(Map.of()).stream().filter(x -> x.key().equals(key)).findFirst()
                .orElseThrow(() -> new Refused(404, "Unable to find metadata with key " + key));
        String type = m.latest().path("test").path("type").asText();
        if (!EsmondEventTypes.of(type, m.latest().path("test").path("spec")).contains(eventType)) {
            throw new Refused(400, "Unrecognized event type " + eventType + " for a " + type + " test");
        }
        if (!summaryType.equals("base")) {
            boolean offered = EsmondEventTypes.SUMMARIES.getOrDefault(eventType, List.of()).stream()
                    .anyMatch(s -> s.urlName().equals(summaryType) && s.window() == w);
            if (!offered) {
                throw new Refused(400, "Unable to build aggregation for " + eventType + "/" + summaryType);
            }
        }
        boolean frames = eventType.startsWith("histogram-") || eventType.contains("subintervals")
                || eventType.startsWith("streams-");
        List<ObjectNode> docs = documents(m, range[0], range[1], frames, w == 0 ? offset : 0, w == 0 ? limit : Integer.MAX_VALUE);
        ArrayNode out = ResultForms.JSON.arrayNode();
        if (w == 0) {
            for (ObjectNode d : docs) {
                JsonNode val = value(d, eventType, summaryType);
                if (val != null && !val.isNull()) {
                    ObjectNode datum = out.addObject();
                    datum.put("ts", Instant.parse(d.path("pscheduler").path("start_time").asText()).getEpochSecond());
                    datum.set("val", val);
                }
            }
            return out;
        }
        List<ObjectNode> rolled = rollup(docs, eventType, summaryType, w);
        int end = (int) Math.min(rolled.size(), (long) offset + limit);
        for (int i = offset; i < end; i++) {
            out.add(rolled.get(i));
        }
        return out;
    }

    // ---- measurements: stored series grouped by the checksum of their newest result's document

    private List<Measurement> measurements(Map<String, String> q) {
        Instant[] range = timeRange(q);
        Map<String, Measurement> byKey = new LinkedHashMap<>();
        for (Series s : stored.series(new SeriesQuery(null, null, null, Map.of(), StoredResults.MAX_SERIES))) {
            if (PschedulerType.of(s.test()).isEmpty()) {
                continue;
            }
            List<Observation> newest = stored.find(new ObservationQuery(s.test(), s.subject().dst().host(),
                    s.subject().src() == null ? null : s.subject().src().host(), range[0], range[1], false, 1,
                    s.parameters(), s.measurementPoint()), o -> { });
            if (newest.isEmpty()) {
                continue;
            }
            Observation o = newest.get(newest.size() - 1);
            ObjectNode doc = LogstashDocuments.document(o);
            String key = doc.path("pscheduler").path("test_checksum").asText();
            Measurement before = byKey.get(key);
            List<Series> series = new ArrayList<>(before == null ? List.of() : before.series());
            series.add(s);
            if (before == null || o.start().isAfter(before.latestStart())) {
                byKey.put(key, new Measurement(key, series, doc, o.start()));
            } else {
                byKey.put(key, new Measurement(key, series, before.latest(), before.latestStart()));
            }
        }
        List<Measurement> all = new ArrayList<>(byKey.values());
        all.sort(Comparator.comparing(Measurement::latestStart).reversed()); // elmond: latest test first
        return all;
    }

    /** The documents of a measurement's results in the range, oldest first, one page of them. */
    private List<ObjectNode> documents(Measurement m, Instant from, Instant to, boolean frames, int offset, int limit) {
        List<Observation> all = new ArrayList<>();
        for (Series s : m.series()) {
            all.addAll(stored.find(new ObservationQuery(s.test(), s.subject().dst().host(),
                    s.subject().src() == null ? null : s.subject().src().host(), from, to, false,
                    StoredResults.MAX_CONSOLIDATED, s.parameters(), s.measurementPoint()), o -> { }));
        }
        if (all.size() >= StoredResults.MAX_CONSOLIDATED) {
            throw new Refused(400, "the time range holds more than " + StoredResults.MAX_CONSOLIDATED
                    + " results: ask for a shorter one (time-start, time-end, time-range)");
        }
        all.sort(Comparator.comparing(Observation::start).thenComparingLong(Observation::id));
        List<ObjectNode> docs = new ArrayList<>();
        long frameBudget = maxAnswerFrames;
        int end = (int) Math.min(all.size(), (long) offset + limit);
        for (int i = offset; i < end; i++) {
            Observation o = all.get(i);
            if (frames) {
                o = stored.byId(o.id(), true).orElse(o);
                frameBudget -= o.frames().size();
                if (frameBudget < 0) {
                    throw new Refused(400, "the data asked for holds more raw frames than one answer may carry "
                            + "(nmws.limits.max-answer-frames): ask for fewer (limit) or a shorter time range");
                }
            }
            ObjectNode d = LogstashDocuments.document(o);
            if (d.path("pscheduler").path("test_checksum").asText().equals(m.key())) {
                docs.add(d);
            }
        }
        return docs;
    }

    // ---- metadata

    private ObjectNode metadata(Measurement m) {
        JsonNode doc = m.latest();
        JsonNode meta = doc.path("meta");
        JsonNode spec = doc.path("test").path("spec");
        String type = doc.path("test").path("type").asText();
        ObjectNode md = ResultForms.JSON.objectNode();
        md.put("metadata-key", m.key());
        md.put("uri", BASE + "/" + m.key() + "/");
        String observer = meta.path("observer").path("ip").asText(null);
        md.put("measurement-agent", observer);
        String sourceIp = meta.path("source").path("ip").asText(null);
        String destIp = meta.path("destination").path("ip").asText(null);
        if (sourceIp != null && destIp != null) {
            md.put("subject-type", "point-to-point");
            md.put("source", sourceIp);
            md.put("destination", destIp);
        } else {
            md.put("subject-type", "network-element");
            md.put("source", sourceIp != null ? sourceIp : observer);
        }
        md.put("tool-name", "pscheduler/" + doc.path("pscheduler").path("tool").asText());
        md.set("time-duration", doc.path("pscheduler").path("duration").deepCopy());
        md.put("pscheduler-test-type", type);
        md.put("input-source", spec.hasNonNull("source") ? spec.get("source").asText() : observer);
        if (spec.hasNonNull("dest")) {
            md.put("input-destination", spec.get("dest").asText());
        }
        EsmondEventTypes.specFields(type).forEach((field, name) -> {
            if (spec.has(field)) {
                md.set(name, spec.get(field).deepCopy());
            }
        });
        if (type.equals("throughput")) {
            md.put("ip-transport-protocol", spec.path("udp").asBoolean(false) ? "udp" : "tcp");
        }
        long updated = Instant.parse(doc.path("pscheduler").path("added").asText()).getEpochSecond();
        ArrayNode ets = md.putArray("event-types");
        for (String et : EsmondEventTypes.of(type, spec)) {
            ObjectNode e = ets.addObject();
            e.put("base-uri", BASE + "/" + m.key() + "/" + et + "/base");
            e.put("event-type", et);
            ArrayNode sums = e.putArray("summaries");
            for (EsmondEventTypes.Summary s : EsmondEventTypes.SUMMARIES.getOrDefault(et, List.of())) {
                ObjectNode so = sums.addObject();
                so.put("summary-type", s.type());
                so.put("summary-window", Integer.toString(s.window())); // a string, as esmond writes it
                so.put("time-updated", updated);
                so.put("uri", BASE + "/" + m.key() + "/" + et + "/" + s.urlName() + "/" + s.window());
            }
            e.put("time-updated", updated);
        }
        return sorted(md);
    }

    private static boolean matches(ObjectNode md, JsonNode doc, Map<String, String> q) {
        String dns = q.getOrDefault("dns-match-rule", "v4v6");
        if (!Set.of("v4v6", "only-v4", "only-v6", "prefer-v4", "prefer-v6").contains(dns)) {
            throw new Refused(400, "Invalid dns-match-rule parameter " + dns);
        }
        String et = q.get("event-type");
        String st = q.get("summary-type");
        String sw = q.get("summary-window");
        if (et != null && !EsmondEventTypes.KNOWN.contains(et)) {
            throw new Refused(400, "Invalid event-type parameter " + et);
        }
        if (sw != null && !sw.matches("\\d{1,9}")) {
            throw new Refused(400, "summary-window parameter must be an integer");
        }
        if (et != null || st != null || sw != null) {
            boolean any = false;
            for (JsonNode e : md.path("event-types")) {
                if (et != null && !e.path("event-type").asText().equals(et)) {
                    continue;
                }
                if (st == null && sw == null) {
                    any = true;
                }
                for (JsonNode s : e.path("summaries")) {
                    if ((st == null || s.path("summary-type").asText().equals(st))
                            && (sw == null || s.path("summary-window").asText().equals(Integer.toString(Integer.parseInt(sw))))) {
                        any = true;
                    }
                }
            }
            if (!any) {
                return false;
            }
        }
        for (Map.Entry<String, String> p : q.entrySet()) {
            String name = p.getKey();
            String value = p.getValue();
            if (RESERVED.contains(name)) {
                continue;
            }
            boolean ok = switch (name) {
                case "source" -> addressMatches(md.path("source").asText(null), value, dns);
                case "destination" -> addressMatches(md.path("destination").asText(null), value, dns);
                case "measurement-agent" -> addressMatches(md.path("measurement-agent").asText(null), value, dns);
                case "tool-name" -> md.path("tool-name").asText().equals(value.startsWith("pscheduler/") ? value : "pscheduler/" + value);
                case "subject-type" -> {
                    if (!value.equals("point-to-point") && !value.equals("network-element")) {
                        throw new Refused(400, "Invalid subject-type " + value + ".");
                    }
                    yield md.path("subject-type").asText().equals(value);
                }
                default -> md.has(name) ? text(md.get(name)).equals(value)
                        : doc.path("test").path("spec").has(name) && text(doc.path("test").path("spec").get(name)).equals(value);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** A value compared as esmond's term filter compares it: numbers by value, text as is. */
    private static String text(JsonNode v) {
        if (v.isNumber()) {
            return RubyJson.number(v.decimalValue());
        }
        return v.asText();
    }

    private static boolean addressMatches(String stored, String asked, String dns) {
        if (stored == null) {
            return false;
        }
        Set<InetAddress> wanted = resolve(asked, dns);
        try {
            return wanted.contains(InetAddress.getByName(stored));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** An address as given, or a name's A and AAAA records as the dns-match-rule says. */
    private static Set<InetAddress> resolve(String host, String rule) {
        String h = host.trim();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        Set<InetAddress> out = new HashSet<>();
        try {
            boolean literal = h.indexOf(':') >= 0 || h.matches("[0-9.]+");
            InetAddress[] all = literal ? new InetAddress[] {InetAddress.getByName(h)} : InetAddress.getAllByName(h);
            List<InetAddress> v4 = new ArrayList<>();
            List<InetAddress> v6 = new ArrayList<>();
            for (InetAddress a : all) {
                (a instanceof java.net.Inet6Address ? v6 : v4).add(a);
            }
            switch (rule) {
                case "only-v4" -> out.addAll(v4);
                case "only-v6" -> out.addAll(v6);
                case "prefer-v4" -> out.addAll(v4.isEmpty() ? v6 : v4);
                case "prefer-v6" -> out.addAll(v6.isEmpty() ? v4 : v6);
                default -> {
                    out.addAll(v4);
                    out.addAll(v6);
                }
            }
        } catch (UnknownHostException e) {
            // an empty set: refused below
        }
        if (out.isEmpty()) {
            throw new Refused(400, "Unable to find address for host " + host);
        }
        return out;
    }

    // ---- values

    private static JsonNode at(JsonNode doc, String dotted) {
        JsonNode n = doc;
        for (String part : dotted.split("\\.")) {
            n = n.path(part);
        }
        return n.isMissingNode() ? null : n;
    }

    /** One document's value of an event type (base, or statistics with window 0), as elmond extracts it. */
    private static JsonNode value(JsonNode doc, String eventType, String summaryType) {
        String field = EsmondEventTypes.FIELD.get(eventType);
        if (field == null) {
            return eventType.equals("pscheduler-raw") ? doc.path("result").deepCopy() : null;
        }
        JsonNode v = at(doc, field);
        if (v == null || v.isNull()) {
            return null;
        }
        double scale = eventType.equals("histogram-rtt") ? 1000 : 1; // rtt seconds to ms
        if (eventType.startsWith("histogram-")) {
            if (!v.has("histogram")) {
                return null;
            }
            if (summaryType.equals("statistics")) {
                ObjectNode s = ResultForms.JSON.objectNode();
                put(s, "maximum", v.path("max"), scale);
                put(s, "mean", v.path("mean"), scale);
                put(s, "median", v.path("median"), scale);
                put(s, "minimum", v.path("min"), scale);
                ArrayNode mode = s.putArray("mode");
                v.path("mode").forEach(x -> mode.add(x.asDouble() * scale));
                put(s, "percentile-25", v.path("p_25"), scale);
                put(s, "percentile-75", v.path("p_75"), scale);
                put(s, "percentile-95", v.path("p_95"), scale);
                put(s, "standard-deviation", v.path("stddev"), scale);
                put(s, "variance", v.path("variance"), scale * scale);
                return s;
            }
            ObjectNode h = ResultForms.JSON.objectNode();
            LogstashDocuments.histogram(v).forEach((value, count) -> h.put(pythonFloat(value * scale), count));
            return h;
        }
        switch (eventType) {
            case "packet-trace" -> {
                return packetTrace(v);
            }
            case "failures" -> {
                ObjectNode f = ResultForms.JSON.objectNode();
                f.set("error", v.deepCopy());
                return f;
            }
            case "throughput-subintervals", "packet-retransmits-subintervals" -> {
                String key = eventType.startsWith("throughput") ? "throughput-bits" : "retransmits";
                ArrayNode out = ResultForms.JSON.arrayNode();
                for (JsonNode interval : v) {
                    JsonNode s = interval.path("summary");
                    if (s.has("start") && s.has("end") && s.has(key)) {
                        ObjectNode i = out.addObject();
                        i.set("start", s.get("start").deepCopy());
                        i.put("duration", s.get("end").asDouble() - s.get("start").asDouble());
                        i.set("val", s.get(key).deepCopy());
                    }
                }
                return out;
            }
            case "streams-throughput", "streams-packet-retransmits" -> {
                String key = eventType.equals("streams-throughput") ? "throughput-bits" : "retransmits";
                ArrayNode out = ResultForms.JSON.arrayNode();
                v.forEach(s -> out.add(s.has(key) ? s.get(key).deepCopy() : ResultForms.JSON.nullNode()));
                return out;
            }
            default -> {
                return v.deepCopy();
            }
        }
    }

    private static void put(ObjectNode s, String name, JsonNode v, double scale) {
        if (v.isNumber()) {
            s.put(name, v.asDouble() * scale);
        } else {
            s.putNull(name);
        }
    }

    /** A trace's first path as esmond's packet-trace: ttl, query, success, ip, rtt in ms. */
    private static ArrayNode packetTrace(JsonNode paths) {
        ArrayNode out = ResultForms.JSON.arrayNode();
        JsonNode path = paths.path(0);
        for (int i = 0; i < path.size(); i++) {
            JsonNode hop = path.get(i);
            ObjectNode h = out.addObject();
            h.put("ttl", i + 1);
            h.put("query", 1);
            if (hop.hasNonNull("error")) {
                h.put("success", 0);
                h.set("error-message", hop.get("error").deepCopy());
            } else {
                h.put("success", 1);
            }
            if (hop.hasNonNull("ip")) {
                h.set("ip", hop.get("ip").deepCopy());
            }
            if (hop.hasNonNull("hostname")) {
                h.set("hostname", hop.get("hostname").deepCopy());
            }
            if (hop.hasNonNull("rtt")) {
                h.put("rtt", LogstashDocuments.seconds(hop.get("rtt").asText()) * 1000);
            }
            if (hop.hasNonNull("mtu")) {
                h.set("mtu", hop.get("mtu").deepCopy());
            }
        }
        return out;
    }

    /** Windows of w seconds aligned to the epoch (OpenSearch's fixed-interval date histogram), empty ones left out. */
    private static List<ObjectNode> rollup(List<ObjectNode> docs, String eventType, String summaryType, int w) {
        TreeMap<Long, List<ObjectNode>> buckets = new TreeMap<>();
        for (ObjectNode d : docs) {
            long t = Instant.parse(d.path("pscheduler").path("start_time").asText()).getEpochSecond();
            buckets.computeIfAbsent(Math.floorDiv(t, w) * w, k -> new ArrayList<>()).add(d);
        }
        List<ObjectNode> out = new ArrayList<>();
        String field = EsmondEventTypes.FIELD.get(eventType);
        for (Map.Entry<Long, List<ObjectNode>> b : buckets.entrySet()) {
            JsonNode val;
            if (eventType.startsWith("packet-loss-rate")) {
                double lost = sum(b.getValue(), "result.packets.lost");
                double sent = sum(b.getValue(), "result.packets.sent");
                val = sent > 0 ? ResultForms.JSON.numberNode(lost / sent) : null;
            } else if (summaryType.equals("aggregations")) {
                val = ResultForms.JSON.numberNode(sum(b.getValue(), field));
            } else if (summaryType.equals("averages")) {
                double n = count(b.getValue(), field);
                val = n > 0 ? ResultForms.JSON.numberNode(sum(b.getValue(), field) / n) : null;
            } else {
                val = statistics(b.getValue(), field, eventType.equals("histogram-rtt") ? 1000 : 1);
            }
            if (val != null) {
                ObjectNode datum = ResultForms.JSON.objectNode();
                datum.put("ts", b.getKey());
                datum.set("val", val);
                out.add(datum);
            }
        }
        return out;
    }

    /** elmond's statistics rollup: max of maxima, min of minima, averages of the rest. */
    private static JsonNode statistics(List<ObjectNode> docs, String field, double scale) {
        String[][] fields = {{"maximum", "max"}, {"mean", "mean"}, {"median", "median"}, {"minimum", "min"},
                {"percentile-25", "p_25"}, {"percentile-75", "p_75"}, {"percentile-95", "p_95"},
                {"standard-deviation", "stddev"}, {"variance", "variance"}};
        if (count(docs, field + ".mean") == 0) {
            return null;
        }
        ObjectNode s = ResultForms.JSON.objectNode();
        for (String[] f : fields) {
            String path = field + "." + f[1];
            double factor = f[1].equals("variance") ? scale * scale : scale;
            double v;
            if (f[1].equals("max")) {
                v = docs.stream().map(d -> at(d, path)).filter(x -> x != null && x.isNumber()).mapToDouble(JsonNode::asDouble).max().orElse(Double.NaN);
            } else if (f[1].equals("min")) {
                v = docs.stream().map(d -> at(d, path)).filter(x -> x != null && x.isNumber()).mapToDouble(JsonNode::asDouble).min().orElse(Double.NaN);
            } else {
                double n = count(docs, path);
                v = n > 0 ? sum(docs, path) / n : Double.NaN;
            }
            if (Double.isNaN(v)) {
                s.putNull(f[0]);
            } else {
                s.put(f[0], v * factor);
            }
            if (f[1].equals("min")) {
                double n = 0;
                double total = 0;
                for (ObjectNode d : docs) {
                    for (JsonNode m : d.at("/" + field.replace('.', '/') + "/mode")) {
                        total += m.asDouble();
                        n++;
                    }
                }
                s.putArray("mode").add(n > 0 ? total / n * scale : Double.NaN);
            }
        }
        return s;
    }

    private static double sum(List<ObjectNode> docs, String field) {
        double s = 0;
        for (ObjectNode d : docs) {
            JsonNode v = at(d, field);
            if (v != null && v.isNumber()) {
                s += v.asDouble();
            }
        }
        return s;
    }

    private static double count(List<ObjectNode> docs, String field) {
        int n = 0;
        for (ObjectNode d : docs) {
            JsonNode v = at(d, field);
            if (v != null && v.isNumber()) {
                n++;
            }
        }
        return n;
    }

    // ---- query parameters

    private static int integer(Map<String, String> q, String name, int dflt) {
        String v = q.get(name);
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        if (!v.trim().matches("-?\\d{1,9}")) {
            throw new Refused(400, name + " parameter must be an integer");
        }
        return Integer.parseInt(v.trim());
    }

    /** esmond's time filters (time, time-start, time-end, time-range), UNIX seconds; [null, null] when none. */
    static Instant[] timeRange(Map<String, String> q) {
        long now = Instant.now().getEpochSecond();
        Long begin;
        Long end;
        if (q.containsKey("time")) {
            begin = seconds(q, "time");
            end = begin;
        } else if (q.containsKey("time-start") && q.containsKey("time-end")) {
            begin = seconds(q, "time-start");
            end = seconds(q, "time-end");
        } else if (q.containsKey("time-start") && q.containsKey("time-range")) {
            begin = seconds(q, "time-start");
            end = begin + seconds(q, "time-range");
        } else if (q.containsKey("time-end") && q.containsKey("time-range")) {
            end = seconds(q, "time-end");
            begin = end - seconds(q, "time-range");
        } else if (q.containsKey("time-start")) {
            begin = seconds(q, "time-start");
            end = null;
        } else if (q.containsKey("time-end")) {
            begin = 0L;
            end = seconds(q, "time-end");
        } else if (q.containsKey("time-range")) {
            begin = now - seconds(q, "time-range");
            end = null;
        } else {
            return new Instant[] {null, null};
        }
        if (end != null && end < begin) {
            throw new Refused(400, "Requested start time must be less than end time");
        }
        // inclusive bounds to the second: a result that started within the end second counts
        return new Instant[] {Instant.ofEpochSecond(begin), end == null ? null : Instant.ofEpochSecond(end, 999_999_999)};
    }

    private static long seconds(Map<String, String> q, String name) {
        String v = q.get(name).trim();
        if (!v.matches("-?\\d{1,12}")) {
            throw new Refused(400, "Time parameter must be an integer");
        }
        return Long.parseLong(v);
    }

    private static String page(String requestUrl, Map<String, String> q, int offset, int limit) {
        if (requestUrl == null) {
            return null;
        }
        Map<String, String> p = new LinkedHashMap<>(q);
        p.put("limit", Integer.toString(limit));
        p.put("offset", Integer.toString(offset));
        StringBuilder sb = new StringBuilder(requestUrl);
        char sep = '?';
        for (Map.Entry<String, String> e : p.entrySet()) {
            sb.append(sep).append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
            sep = '&';
        }
        return sb.toString();
    }

    /** Python's str() of a float, as elmond's histogram keys are written ("34.4", "35.0"). */
    static String pythonFloat(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e16) {
            return (long) v + ".0";
        }
        String s = Double.toString(v);
        if (s.contains("E") && Math.abs(v) >= 1e-4 && Math.abs(v) < 1e16) {
            s = new java.math.BigDecimal(s).toPlainString();
        }
        return s;
    }

    /** Keys in alphabetical order, as elmond dumps its answers (sort_keys). */
    static ObjectNode sorted(ObjectNode n) {
        ObjectNode out = ResultForms.JSON.objectNode();
        NavigableMap<String, JsonNode> fields = new TreeMap<>();
        n.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
        fields.forEach((k, v) -> {
            if (v.isObject()) {
                out.set(k, sorted((ObjectNode) v));
            } else if (v.isArray()) {
                ArrayNode a = out.putArray(k);
                v.forEach(x -> a.add(x.isObject() ? sorted((ObjectNode) x) : x));
            } else {
                out.set(k, v);
            }
        });
        return out;
    }
}
