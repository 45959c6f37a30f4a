package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.nmws.service.observation.Observation;

/**
 * The OpenSearch document perfSONAR's Logstash pipeline makes from a pScheduler archive body,
 * written without Logstash: the same steps in the same order (perfsonar/logstash pipeline/):
 * <ol>
 * <li>02 common: task.schedule becomes schedule; run.added, run.start-time, run.end-time,
 * participants, tool.name, task.detail.duration, task.href and run.href become
 * pscheduler.{added, start_time, end_time, participants, tool, duration, task_href, run_href};
 * task_id and run_id are cut from the hrefs; run, task and tool go; then
 * pscheduler.test_checksum = SHA-256 of the canonical JSON of {test, observer_ip, tool}. The
 * checksum runs before 03 sets meta.observer, so observer_ip is null in it, as in perfSONAR:
 * the checksum (esmond's metadata-key in perfSONAR 5) names the test and tool only.</li>
 * <li>03: meta.source, meta.destination ({ip, hostname}), meta.observer and meta.ip_version
 * (the source is the observer when the spec names none). Logstash resolves names through DNS;
 * here the addresses the test used stand in, so no lookup runs.</li>
 * <li>04: pscheduler.duration, schedule.slip and schedule.repeat from ISO 8601 to seconds.</li>
 * <li>06 per type: result.* renamed to perfSONAR's fields and units (below).</li>
 * </ol>
 * latency: result.packets.{sent, received, lost, duplicated, reordered, loss (lost/sent)},
 * result.max_clock_error, result.latency.* (histogram and statistics, ms); rtt: result.packets.*
 * (json: the round trips), result.rtt.{min, max, mean, stddev} in seconds with the histogram
 * and statistics of the round trips (seconds, as elmond reads them); throughput:
 * result.{throughput (bits/s), packets_sent, packets_lost, jitter, rtt, retransmits, mss, mtu},
 * result.intervals.json, result.streams.json when parallel > 1 (tcp_window_size is not written:
 * the pipeline renames a field pScheduler's result does not have); trace: result.hop.{count,
 * success_count, error_count, ip, ip_str, as_number, as_number_str, as_organization,
 * as_organization_str, checksum}, result.mtu, result.json (the paths). Every result keeps
 * succeeded (and error, when it has one).
 *
 * <p>Stable entry points: {@link #document(Observation)}, {@link #fromArchiveBody(JsonNode)},
 * {@link #dataStream(Observation)} ("pscheduler_&lt;type&gt;", written with the create action).
 * {@code @timestamp} is the run's start, so the same result always makes the same document.
 */
public final class LogstashDocuments {
    private LogstashDocuments() {
    }

    /** The document for a stored result, in its own test's type. */
    public static ObjectNode document(Observation o) {
        return document(o, PschedulerType.required(o));
    }

    /** The document of a result written as the given type. */
    public static ObjectNode document(Observation o, PschedulerType type) {
        ObjectNode doc = fromArchiveBody(PschedulerResults.archiveBody(o, type));
        // 03 resolves names through DNS; the addresses the test itself used are the answer here
        ObjectNode meta = (ObjectNode) doc.get("meta");
        if (o.srcAddress() != null) {
            ((ObjectNode) meta.get("source")).put("ip", o.srcAddress());
        }
        if (o.dstAddress() != null && meta.has("destination")) {
            ((ObjectNode) meta.get("destination")).put("ip", o.dstAddress());
        }
        return doc;
    }

    /** The data stream the document goes to. */
    public static String dataStream(Observation o) {
        return "pscheduler_" + PschedulerType.required(o).typeName();
    }

    /** The pipeline's steps applied to a pScheduler archive body (or to its result, as the http archiver posts it). */
    public static ObjectNode fromArchiveBody(JsonNode body) {
        JsonNode in = body.has("result") && body.get("result").has("test") ? body.get("result") : body;
        ObjectNode doc = ResultForms.JSON.objectNode();
        doc.put("@timestamp", in.path("run").path("start-time").asText());
        doc.put("@version", "1");
        doc.put("id", in.path("id").asText());
        // 02: schedule from the task, pscheduler.* from run, task and tool
        doc.set("schedule", in.path("task").path("schedule").isMissingNode()
                ? ResultForms.JSON.objectNode() : in.path("task").path("schedule").deepCopy());
        doc.set("test", in.path("test").deepCopy());
        doc.set("reference", in.path("reference").deepCopy());
        ObjectNode ps = doc.putObject("pscheduler");
        copyText(in.path("run").path("added"), ps, "added");
        copyText(in.path("run").path("start-time"), ps, "start_time");
        copyText(in.path("run").path("end-time"), ps, "end_time");
        ps.set("participants", in.path("participants").deepCopy());
        copyText(in.path("tool").path("name"), ps, "tool");
        String taskHref = in.path("task").path("href").asText();
        String runHref = in.path("run").path("href").asText();
        ps.put("task_href", taskHref);
        ps.put("run_href", runHref);
        ps.put("task_id", after(taskHref, "/tasks/"));
        ps.put("run_id", after(runHref, "/runs/"));
        ps.put("test_checksum", testChecksum(in.path("test"), ps.path("tool").asText()));
        // 03: endpoints
        String type = in.path("test").path("type").asText();
        JsonNode spec = in.path("test").path("spec");
        ObjectNode meta = doc.putObject("meta");
        String observer = host(taskHref);
        ObjectNode obs = meta.putObject("observer");
        obs.put("ip", observer);
        obs.put("hostname", observer);
        String source = spec.hasNonNull("source") ? spec.get("source").asText() : observer;
        String dest = spec.path("dest").asText(null);
        String destIp = destinationAddress(in, dest);
        ObjectNode src = meta.putObject("source");
        src.put("ip", source);
        src.put("hostname", source);
        if (dest != null) {
            ObjectNode dst = meta.putObject("destination");
            dst.put("ip", destIp);
            dst.put("hostname", dest);
        }
        meta.put("ip_version", spec.has("ip-version") ? spec.get("ip-version").asInt()
                : (destIp != null && destIp.indexOf(':') >= 0 ? 6 : 4));
        // 04: durations in seconds
        double duration = seconds(in.path("task").path("detail").path("duration").asText(null));
        if (!Double.isNaN(duration)) {
            ps.put("duration", duration);
        }
        // 06: the result in perfSONAR's fields
        JsonNode r = in.path("result");
        ObjectNode out;
        switch (type) {
            case "latency", "latencybg" -> out = latency(r);
            case "rtt" -> {
                out = rtt(r);
                isoToSeconds((ObjectNode) doc.get("test").get("spec"), "interval", "timeout", "deadline");
            }
            case "throughput" -> {
                out = throughput(r, spec);
                isoToSeconds((ObjectNode) doc.get("test").get("spec"), "duration", "omit", "interval");
            }
            case "trace" -> {
                out = trace(r);
                isoToSeconds((ObjectNode) doc.get("test").get("spec"), "sendwait", "wait");
            }
            default -> {
                out = ResultForms.JSON.objectNode();
                out.set("json", r.deepCopy());
            }
        }
        if (r.has("succeeded")) {
            out.set("succeeded", r.get("succeeded").deepCopy());
        }
        if (r.has("error")) {
            out.set("error", r.get("error").deepCopy());
        }
        doc.set("result", out);
        return doc;
    }

    /** SHA-256 (hex) of the canonical {observer_ip: null, test, tool}, as pscheduler_test_checksum.rb. */
    public static String testChecksum(JsonNode test, String tool) {
        ObjectNode n = ResultForms.JSON.objectNode();
        n.set("test", test.deepCopy());
        n.putNull("observer_ip");
        n.put("tool", tool);
        return sha256(RubyJson.canonical(n));
    }

    private static ObjectNode latency(JsonNode r) {
        ObjectNode out = ResultForms.JSON.objectNode();
        ObjectNode packets = out.putObject("packets");
        copyNumber(r, "packets-duplicated", packets, "duplicated");
        copyNumber(r, "packets-lost", packets, "lost");
        copyNumber(r, "packets-received", packets, "received");
        copyNumber(r, "packets-reordered", packets, "reordered");
        copyNumber(r, "packets-sent", packets, "sent");
        if (r.has("packets-lost") && r.path("packets-sent").asDouble() > 0) {
            packets.put("loss", r.get("packets-lost").asDouble() / r.get("packets-sent").asDouble());
        }
        copyNumber(r, "max-clock-error", out, "max_clock_error");
        if (r.has("histogram-latency")) {
            out.set("latency", HistogramStats.of(HistogramStats.parse(r.get("histogram-latency"), 1)));
        }
        if (r.has("histogram-ttl")) {
            out.set("ttl", HistogramStats.of(HistogramStats.parse(r.get("histogram-ttl"), 1)));
        }
        return out;
    }

    private static ObjectNode rtt(JsonNode r) {
        ObjectNode out = ResultForms.JSON.objectNode();
        ObjectNode packets = out.putObject("packets");
        copyNumber(r, "duplicates", packets, "duplicated");
        copyNumber(r, "lost", packets, "lost");
        copyNumber(r, "loss", packets, "loss");
        copyNumber(r, "received", packets, "received");
        copyNumber(r, "reorders", packets, "reordered");
        copyNumber(r, "sent", packets, "sent");
        if (r.has("roundtrips")) {
            packets.set("json", r.get("roundtrips").deepCopy());
        }
        // the round trips' histogram in seconds (10 us buckets), as elmond reads histogram-rtt
        TreeMap<Double, Long> h = new TreeMap<>();
        for (JsonNode t : r.path("roundtrips")) {
            double s = seconds(t.path("rtt").asText(null));
            if (!Double.isNaN(s)) {
                h.merge(Math.round(s * 1e5) / 1e5, 1L, Long::sum);
            }
        }
        ObjectNode rtt = h.isEmpty() ? ResultForms.JSON.objectNode() : HistogramStats.of(h);
        for (String f : new String[] {"min", "max", "mean", "stddev"}) {
            double s = seconds(r.path(f).asText(null));
            if (!Double.isNaN(s)) {
                rtt.put(f, s);
            }
        }
        out.set("rtt", rtt);
        return out;
    }

    private static ObjectNode throughput(JsonNode r, JsonNode spec) {
        ObjectNode out = ResultForms.JSON.objectNode();
        JsonNode sum = r.path("summary").path("summary");
        copyNumber(sum, "throughput-bits", out, "throughput");
        copyNumber(sum, "sent", out, "packets_sent");
        copyNumber(sum, "lost", out, "packets_lost");
        copyNumber(sum, "jitter", out, "jitter");
        copyNumber(sum, "rtt", out, "rtt");
        copyNumber(sum, "retransmits", out, "retransmits");
        copyNumber(r, "mss", out, "mss");
        copyNumber(r, "mtu", out, "mtu");
        if (r.has("intervals")) {
            out.putObject("intervals").set("json", r.get("intervals").deepCopy());
        }
        if (spec.path("parallel").asInt(1) > 1 && r.path("summary").has("streams")) {
            out.putObject("streams").set("json", r.path("summary").get("streams").deepCopy());
        }
        return out;
    }

    private static ObjectNode trace(JsonNode r) {
        ObjectNode out = ResultForms.JSON.objectNode();
        JsonNode paths = r.path("paths");
        if (!paths.isArray() || paths.isEmpty()) {
            return out;
        }
        List<String> ips = new ArrayList<>();
        List<Long> asns = new ArrayList<>();
        List<String> orgs = new ArrayList<>();
        long errors = 0;
        Long mtu = null;
        for (JsonNode hop : paths.get(0)) {
            if (!hop.hasNonNull("ip")) {
                errors++;
                continue;
            }
            ips.add(hop.get("ip").asText());
            if (hop.path("as").has("number")) {
                asns.add(hop.path("as").get("number").asLong());
            }
            if (hop.path("as").has("owner")) {
                orgs.add(hop.path("as").get("owner").asText());
            }
            if (hop.has("mtu") && (mtu == null || hop.get("mtu").asLong() < mtu)) {
                mtu = hop.get("mtu").asLong();
            }
        }
        ObjectNode h = out.putObject("hop");
        h.put("count", ips.size() + errors);
        h.put("success_count", ips.size());
        h.put("error_count", errors);
        ArrayNode ip = h.putArray("ip");
        ips.forEach(ip::add);
        h.put("ip_str", String.join(" ", ips));
        ArrayNode asn = h.putArray("as_number");
        asns.forEach(asn::add);
        h.put("as_number_str", String.join(" ", asns.stream().map(String::valueOf).toList()));
        ArrayNode org = h.putArray("as_organization");
        orgs.forEach(org::add);
        h.put("as_organization_str", String.join(" ", orgs));
        if (mtu != null) {
            out.put("mtu", mtu);
        }
        out.set("json", paths.deepCopy());
        // the fingerprint filter (SHA256, concatenate_sources): "|field|value|", the array as Ruby prints it
        StringBuilder ruby = new StringBuilder("[");
        for (int i = 0; i < ips.size(); i++) {
            ruby.append(i == 0 ? "" : ", ").append('"').append(ips.get(i)).append('"');
        }
        ruby.append(']');
        h.put("checksum", sha256("|[@metadata][result][hop][ip]|" + ruby + "|"));
        return out;
    }

    /** The address the test reached, from the result (a round trip's reply, a trace's last hop) or the name given. */
    private static String destinationAddress(JsonNode in, String dest) {
        JsonNode r = in.path("result");
        for (JsonNode t : r.path("roundtrips")) {
            if (t.hasNonNull("ip")) {
                return t.get("ip").asText();
            }
        }
        JsonNode path = r.path("paths").path(0);
        if (path.isArray() && !path.isEmpty() && path.get(path.size() - 1).hasNonNull("ip")) {
            return path.get(path.size() - 1).get("ip").asText();
        }
        return dest;
    }

    private static void isoToSeconds(ObjectNode spec, String... fields) {
        for (String f : fields) {
            if (spec.has(f) && spec.get(f).isTextual()) {
                double s = seconds(spec.get(f).asText());
                if (!Double.isNaN(s)) {
                    spec.put(f, s);
                }
            }
        }
    }

    /** An ISO 8601 duration of days, hours, minutes and seconds in seconds; NaN when it is not one. */
    static double seconds(String iso) {
        if (iso == null) {
            return Double.NaN;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "P(?:(\\d+(?:\\.\\d+)?)D)?(?:T(?:(\\d+(?:\\.\\d+)?)H)?(?:(\\d+(?:\\.\\d+)?)M)?(?:(\\d+(?:\\.\\d+)?)S)?)?")
                .matcher(iso.trim());
        if (!m.matches() || iso.trim().equals("P") || iso.trim().equals("PT")) {
            return Double.NaN;
        }
        double[] scale = {86400, 3600, 60, 1};
        double s = 0;
        for (int i = 0; i < 4; i++) {
            if (m.group(i + 1) != null) {
                s += Double.parseDouble(m.group(i + 1)) * scale[i];
            }
        }
        return s;
    }

    private static String host(String href) {
        try {
            String h = java.net.URI.create(href).getHost();
            return h == null ? "" : h.replace("[", "").replace("]", "");
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    private static String after(String href, String marker) {
        int i = href.lastIndexOf(marker);
        return i < 0 ? "" : href.substring(i + marker.length());
    }

    private static void copyText(JsonNode v, ObjectNode to, String name) {
        if (v.isTextual()) {
            to.put(name, v.asText());
        }
    }

    private static void copyNumber(JsonNode from, String field, ObjectNode to, String name) {
        JsonNode v = from.get(field);
        if (v != null && v.isNumber()) {
            to.set(name, v.deepCopy());
        }
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    /** For tests and the esmond reader: the histogram object of a document's field, as counted values. */
    static NavigableMap<Double, Long> histogram(JsonNode stats) {
        TreeMap<Double, Long> h = new TreeMap<>();
        JsonNode values = stats.path("histogram").path("values");
        JsonNode counts = stats.path("histogram").path("counts");
        for (int i = 0; i < values.size() && i < counts.size(); i++) {
            h.merge(values.get(i).asDouble(), counts.get(i).asLong(), Long::sum);
        }
        return h;
    }
}
