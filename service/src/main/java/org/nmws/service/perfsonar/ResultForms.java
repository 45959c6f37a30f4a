package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;

/**
 * A stored result as the pScheduler result of one test type, field by field as that type's
 * validate.py in pScheduler describes it (and service/src/main/resources/perfsonar/*-result.json
 * checks it). Figures nmws did not measure are left out, never written as zero.
 */
final class ResultForms {
    static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ResultForms() {
    }

    static ObjectNode result(Observation o, PschedulerType type) {
        return switch (type) {
            case LATENCY -> latency(o);
            case RTT -> rtt(o);
            case THROUGHPUT -> o.test() == ProbeTest.UDP_STREAM ? udpThroughput(o) : tcpThroughput(o);
            case TRACE -> trace(o);
        };
    }

    private static ObjectNode base() {
        ObjectNode r = JSON.objectNode();
        r.put("schema", 1);
        r.put("succeeded", true);
        return r;
    }

    /** One-way delay from a UDP stream: counts, the clock error bound, and the delay histogram from the frames. */
    static ObjectNode latency(Observation o) {
        Map<String, Double> s = o.summary();
        ObjectNode r = base();
        putCount(r, "packets-sent", s.get("sent"));
        putCount(r, "packets-received", s.get("received"));
        putCount(r, "packets-lost", s.get("lost"));
        putCount(r, "packets-duplicated", s.get("duplicates"));
        putCount(r, "packets-reordered", s.get("outOfOrder"));
        Double err = s.get("oneWayUncertaintyMs");
        if (err != null) {
            r.put("max-clock-error", err);
        }
        TreeMap<BigDecimal, Long> h = latencyHistogram(o.frames());
        if (!h.isEmpty()) {
            ObjectNode hist = r.putObject("histogram-latency");
            h.forEach((k, n) -> hist.put(k.toPlainString(), n));
        }
        return r;
    }

    /**
     * owping's histogram: each delay in ms to two decimal places (bucket-width 0.001 s, 0.01 ms
     * resolution), counted. A delay below zero (unsynchronised clocks) is kept as it was measured.
     */
    static TreeMap<BigDecimal, Long> latencyHistogram(List<Observation.Frame> frames) {
        TreeMap<BigDecimal, Long> h = new TreeMap<>();
        for (Observation.Frame f : frames) {
            if (f.lost()) {
                continue;
            }
            long ns = f.valueNanos() == -2 ? -1 : f.valueNanos(); // -2 stands for a measured -1 ns (StreamObservations)
            BigDecimal ms = BigDecimal.valueOf(ns, 6).setScale(2, RoundingMode.HALF_EVEN).stripTrailingZeros();
            if (ms.signum() == 0) {
                ms = BigDecimal.ZERO;
            }
            h.merge(ms, 1L, Long::sum);
        }
        return h;
    }

    /** Round trips as pScheduler's ping writes them: per reply, then counts, loss as a fraction and RTT durations. */
    static ObjectNode rtt(Observation o) {
        Map<String, Double> s = o.summary();
        ObjectNode r = base();
        ArrayNode trips = r.putArray("roundtrips");
        List<Long> rtts = new ArrayList<>();
        for (Observation.Frame f : o.frames()) {
            if (f.lost()) {
                continue;
            }
            ObjectNode t = trips.addObject();
            if (o.dstAddress() != null) {
                t.put("ip", o.dstAddress());
            }
            if (f.bytes() > 0) {
                t.put("length", f.bytes());
            }
            t.put("rtt", Iso.nanos(f.valueNanos()));
            if (f.ttl() > 0) {
                t.put("ttl", f.ttl());
            }
            t.put("seq", f.seq() + 1); // numbered from 1, as ping's icmp_seq (pScheduler's Cardinal)
            rtts.add(f.valueNanos());
        }
        long sent = Math.round(s.getOrDefault("sent", 0.0));
        long received = Math.round(s.getOrDefault("received", 0.0));
        if (sent > 0) {
            r.put("sent", sent);
        }
        r.put("received", received);
        r.put("lost", Math.max(0, sent - received));
        putCount(r, "reorders", s.get("outOfOrder"));
        putCount(r, "duplicates", s.get("duplicates"));
        r.put("loss", sent > 0 ? (double) Math.max(0, sent - received) / sent : 0.0);
        if (!rtts.isEmpty()) {
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            double sum = 0;
            for (long v : rtts) {
                min = Math.min(min, v);
                max = Math.max(max, v);
                sum += v;
            }
            double mean = sum / rtts.size();
            double sq = 0;
            for (long v : rtts) {
                sq += (v - mean) * (v - mean);
            }
            r.put("min", Iso.nanos(min));
            r.put("max", Iso.nanos(max));
            r.put("mean", Iso.nanos(Math.round(mean)));
            r.put("stddev", Iso.nanos(Math.round(Math.sqrt(sq / rtts.size()))));
        } else {
            // Raw frames gone (retention): the summary's figures, in ms
            putMs(r, "min", s.get("minRtt"));
            putMs(r, "max", s.get("maxRtt"));
            putMs(r, "mean", s.get("meanRtt"));
        }
        return r;
    }

    /**
     * A TCP test as pScheduler's iperf3 tool writes it: intervals per time bin (from the kept
     * per-stream bins), the whole test per stream and in sum, with retransmits and smoothed RTT (us).
     */
    static ObjectNode tcpThroughput(Observation o) {
        Map<String, Double> s = o.summary();
        ObjectNode r = JSON.objectNode();
        r.put("schema", 1);
        r.put("succeeded", true);
        int streams = (int) Math.round(s.getOrDefault("streams", 1.0));
        r.put("diags", "nmprobe " + o.toolVersion() + ": " + streams + " TCP stream" + (streams == 1 ? "" : "s")
                + ", " + Iso.plain(s.getOrDefault("receiverSeconds", 0.0)) + " s");
        long[] mss = o.samples().get("mssBytes");
        if (mss != null && mss.length > 0) {
            long m = 0;
            for (long v : mss) {
                m = Math.max(m, v);
            }
            if (m > 0) {
                r.put("mss", m);
            }
        }
        String window = o.parameters().get("windowSize");
        if (window != null && !window.equals("0")) {
            r.put("requested-tcp-window-size", Long.parseLong(window));
        }
        ArrayNode intervals = r.putArray("intervals");
        tcpIntervals(o, intervals);
        double seconds = s.getOrDefault("receiverSeconds", 0.0);
        ObjectNode summary = r.putObject("summary");
        ArrayNode perStream = summary.putArray("streams");
        for (int i = 0; i < streams; i++) {
            ObjectNode st = perStream.addObject();
            st.put("stream-id", i + 1);
            st.put("start", 0.0);
            st.put("end", seconds);
            putRate(st, s.get("stream" + i + "ThroughputMbps"));
            putLong(st, "throughput-bytes", s.get("stream" + i + "BytesReceived"));
            putLong(st, "retransmits", s.get("stream" + i + "Retransmits"));
            Double srtt = s.get("stream" + i + "FinalSrttUs");
            if (srtt != null) {
                st.put("rtt", srtt);
            }
        }
        ObjectNode total = summary.putObject("summary");
        total.put("start", 0.0);
        total.put("end", seconds);
        putRate(total, s.get("throughputMbps"));
        putLong(total, "throughput-bytes", s.get("bytesReceived"));
        putLong(total, "retransmits", s.get("retransmits"));
        Double srtt = s.get("meanSrttUs");
        if (srtt != null) {
            total.put("rtt", srtt);
        }
        return r;
    }

    /** TCP frames: seq = stream * bins + bin, ttl = stream, bytes received in the bin, value = the bin's length. */
    private static void tcpIntervals(Observation o, ArrayNode intervals) {
        if (o.frames().isEmpty()) {
            return;
        }
        long t0 = Long.MAX_VALUE;
        for (Observation.Frame f : o.frames()) {
            t0 = Math.min(t0, f.sendEpochNanos());
        }
        TreeMap<Long, List<Observation.Frame>> bins = new TreeMap<>();
        for (Observation.Frame f : o.frames()) {
            bins.computeIfAbsent(f.sendEpochNanos(), k -> new ArrayList<>()).add(f);
        }
        for (Map.Entry<Long, List<Observation.Frame>> bin : bins.entrySet()) {
            List<Observation.Frame> fs = bin.getValue();
            double start = (bin.getKey() - t0) / 1e9;
            double len = fs.get(0).valueNanos() / 1e9;
            if (!(len > 0)) {
                continue;
            }
            ObjectNode interval = intervals.addObject();
            ArrayNode streams = interval.putArray("streams");
            long bytes = 0;
            fs.sort((a, b) -> Integer.compare(a.ttl(), b.ttl()));
            for (Observation.Frame f : fs) {
                ObjectNode st = streams.addObject();
                st.put("stream-id", f.ttl() + 1);
                st.put("start", start);
                st.put("end", start + len);
                st.put("throughput-bits", f.bytes() * 8 / len);
                st.put("throughput-bytes", f.bytes());
                st.put("omitted", false);
                bytes += f.bytes();
            }
            ObjectNode sum = interval.putObject("summary");
            sum.put("start", start);
            sum.put("end", start + len);
            sum.put("throughput-bits", bytes * 8 / len);
            sum.put("throughput-bytes", bytes);
            sum.put("omitted", false);
        }
    }

    /** A UDP stream as iperf3's UDP test: what arrived, packets sent and lost, jitter in ms; one interval, the whole test. */
    static ObjectNode udpThroughput(Observation o) {
        Map<String, Double> s = o.summary();
        ObjectNode r = JSON.objectNode();
        r.put("schema", 1);
        r.put("succeeded", true);
        r.put("diags", "nmprobe " + o.toolVersion() + ": UDP stream of " + Math.round(s.getOrDefault("sent", 0.0))
                + " frames of " + o.parameters().getOrDefault("packetSize", "?") + " bytes");
        double seconds = s.getOrDefault("receiveDurationMs", 0.0) / 1e3;
        ObjectNode whole = JSON.objectNode();
        whole.put("stream-id", 1);
        whole.put("start", 0.0);
        whole.put("end", seconds);
        putRate(whole, s.get("receiverUserMbps"));
        putLong(whole, "sent", s.get("sent"));
        putLong(whole, "lost", s.get("lost"));
        Double jitter = s.get("jitterMs");
        if (jitter != null) {
            whole.put("jitter", jitter);
        }
        ObjectNode interval = r.putArray("intervals").addObject();
        interval.putArray("streams").add(whole.deepCopy());
        interval.set("summary", whole.deepCopy());
        ObjectNode summary = r.putObject("summary");
        summary.putArray("streams").add(whole.deepCopy());
        summary.set("summary", whole);
        return r;
    }

    /** The route as traceroute's hops: address, name and the hop's fastest answer; a hop that never answered is empty. */
    static ObjectNode trace(Observation o) {
        ObjectNode r = base();
        ArrayNode path = r.putArray("paths").addArray();
        List<Environment.RouteHop> route = o.environment() == null || o.environment().route() == null
                ? List.of() : o.environment().route();
        for (Environment.RouteHop h : route) {
            ObjectNode hop = path.addObject();
            if (h.address() == null) {
                continue;
            }
            hop.put("ip", h.address());
            if (h.name() != null && !h.name().isBlank()) {
                hop.put("hostname", h.name());
            }
            Double ms = o.summary().get("hop" + h.ttl() + "MinRttMs");
            if (ms != null && ms >= 0) {
                hop.put("rtt", Iso.nanos(Math.round(ms * 1e6)));
            }
        }
        return r;
    }

    private static void putCount(ObjectNode r, String name, Double v) {
        if (v != null && v >= 0) {
            r.put(name, Math.round(v));
        }
    }

    private static void putLong(ObjectNode r, String name, Double v) {
        if (v != null) {
            r.put(name, Math.round(v));
        }
    }

    private static void putMs(ObjectNode r, String name, Double ms) {
        if (ms != null && ms >= 0) {
            r.put(name, Iso.nanos(Math.round(ms * 1e6)));
        }
    }

    private static void putRate(ObjectNode r, Double mbps) {
        if (mbps != null) {
            r.put("throughput-bits", mbps * 1e6);
        }
    }
}
