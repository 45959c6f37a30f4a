package org.nmws.service.kind;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Params;

/**
 * The parameters of a round-trip test, by their deployed NMWG names: count, packetSize
 * (UDP payload bytes), interval (seconds between frames), ttl, timeout (seconds to wait
 * for the last reply), timeDuration (seconds; sets count when count is not given),
 * port (the responder's control port), raw (return per-frame datums) and closedLoop (ping-pong,
 * as sockperf's: each frame leaves once the one before was answered or waited timeout for, and
 * interval after it at the earliest; the test may then last count x (interval + timeout)).
 */
public record RoundTripParameters(int count, int packetSize, double intervalSeconds, int ttl,
                                  double timeoutSeconds, int port, boolean raw, boolean closedLoop) {
    public static final int MIN_PACKET_SIZE = 32;
    public static final int MAX_PACKET_SIZE = 9000;
    /** Every parameter name the test reads (protocol: UDP, the test's own). */
    static final java.util.Set<String> READS = java.util.Set.of("count", "packetSize", "interval", "ttl", "timeout",
            "timeDuration", "port", "protocol", "closedLoop");

    /**
     * Strict parse: every value is checked, and a value out of range is refused with a
     * message that names the parameter and the range (never clamped silently).
     */
    public static RoundTripParameters parse(Map<String, String> p, int defaultPort, int maxCount, Duration maxDuration) {
        ParameterNames.check(p, "a round trip", READS);
        ParameterNames.protocol(p, "UDP", " (protocol=STAMP or TWAMP measures to a standard reflector)");
        double interval = Params.decimal(p, "interval", 0.1, 0.0, 60.0);
        int count;
        if (p.containsKey("count") || !p.containsKey("timeDuration")) {
            count = Params.integer(p, "count", 10, 1, maxCount);
        } else {
            double duration = Params.decimal(p, "timeDuration", 0, 0.001, maxDuration.toSeconds());
            long frames = Math.max(1, Math.round(duration / Math.max(interval, 0.001)));
            if (frames > maxCount) {
                throw new IllegalArgumentException("timeDuration " + Params.plain(duration) + " s at interval "
                        + Params.plain(interval) + " s is " + frames + " frames: more than this service's limit of " + maxCount);
            }
            count = (int) frames;
        }
        int size = Params.integer(p, "packetSize", 64, MIN_PACKET_SIZE, MAX_PACKET_SIZE);
        int ttl = Params.integer(p, "ttl", 0, 0, 255);
        double timeout = Params.decimal(p, "timeout", 1.0, 0.001, 60.0);
        int port = Params.integer(p, "port", defaultPort, 1, 65535);
        boolean raw = Params.bool(p, "raw");
        boolean loop = Params.bool(p, "closedLoop");
        if (loop) { // its longest: every frame waited for in full
            Params.withinDuration(count * (interval + timeout), maxDuration,
                    "closedLoop: count %d x (interval %.3f s + timeout %.3f s)", count, interval, timeout);
        } else {
            Params.withinDuration(count * interval + timeout, maxDuration, "count %d x interval %.3f s + timeout %.3f s",
                    count, interval, timeout);
        }
        return new RoundTripParameters(count, size, interval, ttl, timeout, port, raw, loop);
    }

    /** Every parameter the test ran with, by NMWG name, for the response and the archive. */
    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("count", Integer.toString(count));
        m.put("packetSize", Integer.toString(packetSize));
        m.put("interval", Params.plain(intervalSeconds));
        m.put("ttl", Integer.toString(ttl));
        m.put("timeout", Params.plain(timeoutSeconds));
        m.put("port", Integer.toString(port));
        m.put("protocol", "UDP");
        if (closedLoop) {
            m.put("closedLoop", "true");
        }
        return m;
    }
}
