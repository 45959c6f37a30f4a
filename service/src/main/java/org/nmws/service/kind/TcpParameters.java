package org.nmws.service.kind;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Params;

/**
 * Parameters of a TCP memory-to-memory test (TCPstream's), by deployed NMWG/bwctl names:
 * timeDuration (seconds), streams (parallel connections; clear name, bwctl has none),
 * bufferLength (bytes per write), windowSize (socket buffer bytes, 0 = kernel default),
 * interval (seconds between a stream's messages), cbr (true: messages on a fixed schedule
 * of one per interval, reporting each message's lateness), sampleInterval (seconds per
 * time-series bin and TCP_INFO sample), port, raw (per-bin throughput datums), congestion
 * (the congestion control every stream uses, as iperf3's -C and pScheduler's "congestion";
 * absent: the system's default, which the result names either way).
 */
public record TcpParameters(int streams, int messageSize, double intervalSeconds, boolean cbr, int windowBytes,
                            double durationSeconds, double sampleSeconds, double timeoutSeconds, int port, boolean raw,
                            String congestion) {

    /** Every parameter name the test reads (role and direction: this host sends). */
    static final java.util.Set<String> READS = java.util.Set.of("protocol", "streams", "bufferLength", "windowSize",
            "interval", "cbr", "timeDuration", "sampleInterval", "timeout", "port", "congestion", "role", "direction");

    static TcpParameters parse(Map<String, String> p, Characteristic c, int defaultPort, Duration maxDuration) {
        ParameterNames.check(p, "a TCP test", READS);
        ParameterNames.sendsFromHere(p);
        String protocol = p.getOrDefault("protocol", "TCP").trim();
        if (!protocol.equalsIgnoreCase("TCP")) {
            throw new IllegalArgumentException("parameter protocol is '" + protocol + "': this test is TCP");
        }
        int dfltStreams = c == Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP_MULTISTREAM ? 4 : 1;
        int streams = Params.integer(p, "streams", dfltStreams, 1, 16);
        int size = Params.integer(p, "bufferLength", 131072, 32, 1048576);
        int window = Params.integer(p, "windowSize", 0, 0, 256 * 1024 * 1024);
        if (window > 0 && window < 2048) {
            throw new IllegalArgumentException("parameter windowSize is " + window + ": must be 0 (kernel default) or 2048..268435456");
        }
        double interval = Params.decimal(p, "interval", 0, 0, 60);
        boolean cbr = Params.bool(p, "cbr");
        if (cbr && interval <= 0) {
            throw new IllegalArgumentException("cbr needs an interval: the period between a stream's messages");
        }
        double duration = Params.decimal(p, "timeDuration", 5, 0.001, maxDuration.toSeconds());
        double sample = Params.decimal(p, "sampleInterval", 0.1, 0.001, 60);
        // The wait for the last data to be acknowledged after sending ends: over a lossy long path
        // that takes several retransmission timeouts (2 s cut a 60 ms path at 0.5 % loss), and the
        // responder holds a session only for the duration and this wait. It ends as soon as all is
        // acknowledged, so a long default costs a clean path nothing; it stays within max-duration.
        double timeout = Params.decimal(p, "timeout", Math.min(10, Math.max(2, maxDuration.toSeconds() - duration)), 0.001, 60);
        int port = Params.integer(p, "port", defaultPort, 1, 65535);
        boolean raw = Params.bool(p, "raw");
        String congestion = p.get("congestion");
        if (congestion != null) {
            congestion = congestion.trim();
            if (!org.nmws.probe.TcpStreamSpec.isCongestionName(congestion)) {
                throw new IllegalArgumentException("parameter congestion is '" + Params.echo(congestion)
                        + "': a kernel congestion control name (cubic, bbr, reno, ...)");
            }
        }
        Params.withinDuration(duration + timeout, maxDuration, "timeDuration %.1f s + timeout %.1f s", duration, timeout);
        // The engine keeps at most 100000 bins a stream and 400000 in all (NMP_TCP_MAX_BINS,
        // NMP_TCP_MAX_CELLS); a longer series would pile its tail into the last bin.
        double bins = Math.floor((duration + timeout) / sample) + 2;
        if (bins > Math.min(100_000, 400_000 / streams)) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                    "sampleInterval %s s over timeDuration %s s + timeout %s s is %.0f samples a stream: more than the %d"
                            + " kept for %d streams", Params.plain(sample), Params.plain(duration), Params.plain(timeout),
                    bins, Math.min(100_000, 400_000 / streams), streams));
        }
        return new TcpParameters(streams, size, interval, cbr, window, duration, sample, timeout, port, raw, congestion);
    }

    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("protocol", "TCP");
        m.put("streams", Integer.toString(streams));
        m.put("timeDuration", Params.plain(durationSeconds));
        m.put("bufferLength", Integer.toString(messageSize));
        m.put("windowSize", Integer.toString(windowBytes));
        m.put("interval", Params.plain(intervalSeconds));
        m.put("cbr", Boolean.toString(cbr));
        m.put("sampleInterval", Params.plain(sampleSeconds));
        m.put("timeout", Params.plain(timeoutSeconds));
        m.put("port", Integer.toString(port));
        if (congestion != null) {
            m.put("congestion", congestion);
        }
        return m;
    }
}
