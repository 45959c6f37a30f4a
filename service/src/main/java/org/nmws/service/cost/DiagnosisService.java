package org.nmws.service.cost;

import org.nmws.service.measure.Caller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.archive.Archive;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * "Why is this path slow?" answered from what nmws measures, in the order a network engineer
 * would look: what held the TCP sender back (TCP_INFO's receive-window and send-buffer limited
 * time, when it dominates), then whether the rate is what the Mathis et al. bound allows for the
 * loss and round trip seen (random loss on a long path), then whether it fills the narrowest
 * link a per-hop capacity test finds (a bottleneck, located at its hop), and last a window that
 * held a loss-free sender back a good share of the time. The answer names one cause with the
 * figures it rests on; with {@code measure} the tests missing for the question are run first
 * (round trip and TCP, and per-hop capacity only when neither the end hosts nor loss explain
 * the rate).
 */
public class DiagnosisService {
    /** Share of the busy time a limit must hold the sender to be named the cause. */
    static final double LIMITED_SHARE = 50;
    /** Without loss and with no link full, a window limit this large is the cause. */
    static final double WINDOW_WITHOUT_LOSS = 25;
    /**
     * TCP within this factor of the Mathis bound is explained by loss (CUBIC beats Reno's bound);
     * far below it, something else held TCP back (on loopback, the CPU at 36 Gbit/s with a bound
     * of 140 read 0.26).
     */
    static final double MATHIS_LOW = 0.5;
    static final double MATHIS_HIGH = 4;
    /** TCP at this share of the narrowest link fills it. */
    static final double FILLS_LINK = 0.7;

    private final Archive archive;
    private final Clock clock;
    private final MeasurementService measurements;

    public DiagnosisService(Archive archive, Clock clock, MeasurementService measurements) {
        this.archive = archive;
        this.clock = clock;
        this.measurements = measurements;
    }

    /** One figure the diagnosis rests on. */
    public record Evidence(String name, Double value, String units, String text) {
    }

    /**
     * @param cause bottleneck-link, receive-window, send-buffer, packet-loss, or unknown
     * @param hop for bottleneck-link: the hop (TTL) at the far end of the narrowest link, when located
     * @param measured the tests run for this answer
     */
    public record Diagnosis(String src, String dst, String cause, Integer hop, String hopAddress, String summary,
                            List<Evidence> evidence, List<String> measured) {
    }

    /**
     * @param tcpParameters NMWG parameters for a TCP test run for the answer (streams, windowSize)
     */
    public Diagnosis diagnose(Caller caller, String src, String dst, Duration maxAge, boolean measure,
                              Map<String, String> tcpParameters) throws MeasurementException {
        if (measure) {
            caller.requireMeasure(); // before anything is read or run
        }
        if (dst == null || dst.isBlank()) {
            throw new IllegalArgumentException("a diagnosis needs a destination");
        }
        if (maxAge.isNegative() || maxAge.isZero() || maxAge.compareTo(CostQuery.MAX_AGE) > 0) {
            throw new IllegalArgumentException("maxAge must be positive and at most " + CostQuery.MAX_AGE);
        }
        if (src != null && (src.isBlank() || src.equals(measurements.measurementPoint()))) {
            src = null;
        }
        if (measure && src != null) {
            throw new IllegalArgumentException("tests run from this point only; ask " + src + " to diagnose its paths");
        }
        Instant since = clock.instant().minus(maxAge);
        List<String> measured = new ArrayList<>();
        PathSubject path = new PathSubject(null, Endpoint.parse(dst, null));
        if (measure) {
            measurements.measure(caller, Characteristic.PATH_DELAY_ROUNDTRIP, path, Map.of("count", "100", "interval", "0.01"));
            measured.add("path.delay.roundTrip");
            Map<String, String> tcp = new LinkedHashMap<>();
            tcp.put("timeDuration", "5");
            tcpParameters.forEach((k, v) -> {
                if (k.equals("streams") || k.equals("windowSize") || k.equals("congestion")) {
                    tcp.put(k, v);
                }
            });
            measurements.measure(caller, Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP, path, tcp);
            measured.add("path.bandwidth.achievable.TCP");
        }
        Optional<Observation> tcp = latest(Characteristic.ProbeTest.TCP_STREAM, src, dst, since);
        Optional<Observation> rr = latest(Characteristic.ProbeTest.ROUND_TRIP, src, dst, since);
        if (tcp.isEmpty()) {
            return new Diagnosis(src, dst, "unknown", null, null, "no TCP test of this path within " + maxAge
                    + (measure ? "" : "; ask with measure=true to run one"), List.of(), measured);
        }
        Map<String, Double> t = tcp.get().summary();
        List<Evidence> ev = new ArrayList<>();
        double rate = t.getOrDefault("throughputMbps", Double.NaN);
        ev.add(new Evidence("throughputMbps", rate, "Mbit/s", "achievable TCP, " + t.getOrDefault("streams", 1.0).intValue()
                + " stream(s)"));
        Double rttMs = rr.map(o -> o.summary().get("medianRtt")).orElse(null);
        if (rttMs == null && t.get("meanSrttUs") != null) {
            rttMs = t.get("meanSrttUs") / 1e3;
        }
        if (rttMs != null) {
            ev.add(new Evidence("rttMs", rttMs, "ms", rr.isPresent() ? "median round trip" : "TCP's smoothed RTT"));
        }

        // 1. The end hosts: what held the sender back while it had data to send.
        Double rwnd = t.get("rwndLimitedPercent");
        Double sndbuf = t.get("sndbufLimitedPercent");
        if (rwnd != null) {
            ev.add(new Evidence("rwndLimitedPercent", rwnd, "%", "time the receiver's window was the limit"));
            ev.add(new Evidence("sndbufLimitedPercent", sndbuf, "%", "time the send buffer was the limit"));
        }
        if (rwnd != null && rwnd >= LIMITED_SHARE) {
            return receiveWindow(src, dst, rwnd, rate, rttMs, ev, measured);
        }
        if (sndbuf != null && sndbuf >= LIMITED_SHARE) {
            return new Diagnosis(src, dst, "send-buffer", null, null, String.format(
                    "the send buffer held TCP back %.0f %% of the time; raise net.ipv4.tcp_wmem", sndbuf), ev, measured);
        }

        // 2. Loss on the path: the rate the Mathis bound allows for the loss and RTT seen.
        double retrans = t.getOrDefault("retransmits", 0.0);
        double segments = t.getOrDefault("bytesSent", 0.0) / CostService.MSS_BYTES;
        double retransRate = segments > 0 ? retrans / segments : 0;
        Double rrLoss = rr.map(o -> o.summary().get("lossPercent")).orElse(null);
        double p = Math.max(retransRate, rrLoss == null ? 0 : rrLoss / 100);
        ev.add(new Evidence("retransmits", retrans, "segments", String.format("%.4f %% of the segments sent", 100 * retransRate)));
        if (rrLoss != null) {
            ev.add(new Evidence("lossPercent", rrLoss, "%", "round-trip probes lost"));
        }
        if (p > 0 && rttMs != null && rttMs > 0) {
            double mathis = CostService.MSS_BYTES * 8 / (rttMs / 1e3) * 1.22 / Math.sqrt(p) / 1e6;
            ev.add(new Evidence("mathisBoundMbps", mathis, "Mbit/s", "MSS/RTT x 1.22/sqrt(loss)"));
            if (retrans > 0 && rate >= MATHIS_LOW * mathis && rate <= MATHIS_HIGH * mathis) {
                String cc = tcp.get().parameters().get("congestionControl");
                return new Diagnosis(src, dst, "packet-loss", null, null, String.format(
                        "loss of %.3f %% on a %.1f ms round trip bounds TCP near %.1f Mbit/s (Mathis), and it reached %.1f"
                                + "%s: find where packets are lost, or use more streams", 100 * p, rttMs, mathis, rate,
                        cc == null ? "" : " with " + cc), ev, measured);
            }
        }

        // 3. The path: the narrowest link, located by per-hop capacity.
        Optional<Observation> hops = latest(Characteristic.ProbeTest.HOP_CAPACITY, src, dst, since);
        if (hops.isEmpty() && measure) {
            measurements.measure(caller, Characteristic.PATH_BANDWIDTH_CAPACITY, path, Map.of("perHop", "true"));
            measured.add("path.bandwidth.capacity perHop");
            hops = latest(Characteristic.ProbeTest.HOP_CAPACITY, src, dst, since);
        }
        if (hops.isPresent()) {
            Observation h = hops.get();
            int narrowest = -1;
            double least = Double.POSITIVE_INFINITY;
            for (int ttl = 1; ttl <= 64; ttl++) {
                Double c = h.summary().get("hop" + ttl + "CapacityMbps");
                if (c != null && h.summary().getOrDefault("hop" + ttl + "LowerBound", 0.0) == 0 && c < least) {
                    least = c;
                    narrowest = ttl;
                }
            }
            // capacity is measured up to each hop, so every hop after the narrow link reads about
            // as low: the link is the first hop that does
            for (int ttl = 1; ttl <= narrowest; ttl++) {
                Double c = h.summary().get("hop" + ttl + "CapacityMbps");
                if (c != null && h.summary().getOrDefault("hop" + ttl + "LowerBound", 0.0) == 0 && c <= 1.05 * least) {
                    narrowest = ttl;
                    break;
                }
            }
            if (narrowest > 0) {
                String address = address(h, narrowest);
                ev.add(new Evidence("bottleneckCapacityMbps", least, "Mbit/s", "capacity up to hop " + narrowest
                        + (address == null ? "" : " (" + address + ")")));
                if (rate >= FILLS_LINK * least) {
                    return new Diagnosis(src, dst, "bottleneck-link", narrowest, address, String.format(
                            "TCP fills the narrowest link: %.1f of %.1f Mbit/s into hop %d%s; the path is as fast as that link",
                            rate, least, narrowest, address == null ? "" : " (" + address + ")"), ev, measured);
                }
            }
        }
        // 4. No loss, no full link, and the window held the sender back a good share of the time:
        // without loss the congestion window only grows, so what kept returning was the window.
        if (rwnd != null && rwnd >= WINDOW_WITHOUT_LOSS && retrans == 0 && (sndbuf == null || rwnd >= sndbuf)) {
            return receiveWindow(src, dst, rwnd, rate, rttMs, ev, measured);
        }
        return new Diagnosis(src, dst, "unknown", null, null, String.format("TCP reached %.1f Mbit/s and no measured limit"
                + " explains it%s", rate, hops.isEmpty() ? " (no per-hop capacity measured: ask with measure=true)" : ""),
                ev, measured);
    }

    private static Diagnosis receiveWindow(String src, String dst, double rwnd, double rate, Double rttMs, List<Evidence> ev,
                                           List<String> measured) {
        Double window = rttMs == null ? null : rate * 1e6 / 8 * rttMs / 1e3;
        if (window != null) {
            ev.add(new Evidence("windowBytes", (double) Math.round(window), "bytes", "rate x RTT: the window in use"));
        }
        return new Diagnosis(src, dst, "receive-window", null, null, String.format(
                "the receiver's window held TCP back %.0f %% of the time: %.1f Mbit/s over %s ms is a window of about %s"
                        + " bytes; raise the receiver's buffer (net.ipv4.tcp_rmem, SO_RCVBUF)", rwnd, rate,
                rttMs == null ? "?" : String.format("%.1f", rttMs), window == null ? "?" : Math.round(window)), ev, measured);
    }

    private static String address(Observation hopCapacity, int ttl) {
        List<Environment.RouteHop> route = hopCapacity.environment().route();
        if (route != null) {
            for (Environment.RouteHop r : route) {
                if (r.ttl() == ttl) {
                    return r.address();
                }
            }
        }
        return null;
    }

    private Optional<Observation> latest(Characteristic.ProbeTest test, String src, String dst, Instant since) {
        return CostService.latest(archive, src == null ? measurements.measurementPoint() : null, test, src, dst, since);
    }
}
