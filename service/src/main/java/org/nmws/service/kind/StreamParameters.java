package org.nmws.service.kind;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Params;

/**
 * Parameters of a UDP stream test (UDPmon's: N frames of S bytes W apart), by deployed
 * NMWG names: count, packetSize (or bufferLength, iperf's name for the UDP payload),
 * interval (seconds between frames, 0 = as fast as possible), bandwidthLimit (offered rate
 * in bits/s, suffix k/M/G allowed; sets the interval), timeDuration (seconds; sets count
 * when count is not given), protocol (UDP), ttl, timeout (seconds to wait for the last
 * frame), port (responder control port), raw (return one datum per frame).
 */
public record StreamParameters(int count, int packetSize, double intervalSeconds, int ttl, double timeoutSeconds,
                               int port, boolean raw) {
    /** Every parameter name the test reads (role and direction: this host sends). */
    static final java.util.Set<String> READS = java.util.Set.of("count", "packetSize", "bufferLength", "interval",
            "bandwidthLimit", "timeDuration", "protocol", "ttl", "timeout", "port", "role", "direction");

    public static StreamParameters parse(Map<String, String> p, int defaultPort, int maxCount, Duration maxDuration) {
        return parse(p, defaultPort, maxCount, maxDuration, 0);
    }

    /** @param maxRateMbps the fastest the stream may be sent (user data), 0 for no limit */
    public static StreamParameters parse(Map<String, String> p, int defaultPort, int maxCount, Duration maxDuration,
                                         double maxRateMbps) {
        ParameterNames.check(p, "a UDP stream", READS);
        ParameterNames.sendsFromHere(p);
        String protocol = p.getOrDefault("protocol", "UDP").trim();
        if (!protocol.equalsIgnoreCase("UDP")) {
            throw new IllegalArgumentException("parameter protocol is '" + protocol + "': this test is UDP");
        }
        String sizeName = p.containsKey("packetSize") ? "packetSize" : "bufferLength";
        int size = Params.integer(p, sizeName, 1472, RoundTripParameters.MIN_PACKET_SIZE, RoundTripParameters.MAX_PACKET_SIZE);
        double interval;
        if (p.containsKey("bandwidthLimit")) {
            if (p.containsKey("interval")) {
                throw new IllegalArgumentException("give interval or bandwidthLimit, not both");
            }
            double bps = bitsPerSecond(p.get("bandwidthLimit"));
            interval = size * 8.0 / bps;
        } else {
            interval = Params.decimal(p, "interval", 0.0001, 0.0, 10.0);
        }
        int count;
        if (p.containsKey("count") || !p.containsKey("timeDuration")) {
            count = Params.integer(p, "count", 1000, 1, maxCount);
        } else {
            double duration = Params.decimal(p, "timeDuration", 0, 0.001, maxDuration.toSeconds());
            if (interval <= 0) {
                throw new IllegalArgumentException("timeDuration needs an interval or bandwidthLimit to set the count");
            }
            count = (int) Math.max(1, Math.round(duration / interval));
            if (count > maxCount) {
                throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                        "timeDuration %s s at interval %s s is %d frames: more than this service's limit of %d",
                        Params.plain(duration), Params.plain(interval), count, maxCount));
            }
        }
        int ttl = Params.integer(p, "ttl", 0, 0, 255);
        double timeout = Params.decimal(p, "timeout", 0.5, 0.001, 60.0);
        int port = Params.integer(p, "port", defaultPort, 1, 65535);
        boolean raw = Params.bool(p, "raw");
        Params.withinDuration(count * interval + timeout, maxDuration, "count %d x interval %.6f s + timeout %.3f s",
                count, interval, timeout);
        if (maxRateMbps > 0 && count > 1 && (interval <= 0 || size * 8.0 / interval / 1e6 > maxRateMbps)) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                    "%d-byte frames every %s s is %s Mbit/s: over this client's limit of %s Mbit/s", size,
                    Params.plain(interval), interval <= 0 ? "as fast as the host can send" : Params.plain(size * 8.0 / interval / 1e6),
                    Params.plain(maxRateMbps)));
        }
        return new StreamParameters(count, size, interval, ttl, timeout, port, raw);
    }

    /** iperf's rate syntax: a number of bits per second with an optional k, M or G. */
    static double bitsPerSecond(String text) {
        String t = text == null ? "" : text.trim();
        double mult = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k', 'K' -> mult = 1e3;
                case 'm', 'M' -> mult = 1e6;
                case 'g', 'G' -> mult = 1e9;
                default -> { }
            }
        }
        String number = mult == 1 ? t : t.substring(0, t.length() - 1);
        double v;
        try {
            if (!Params.isDecimal(number)) {
                throw new NumberFormatException();
            }
            v = Double.parseDouble(number) * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter bandwidthLimit is '" + text + "': expected bits/s such as 120M");
        }
        if (!(v >= 1e3 && v <= 100e9)) {
            throw new IllegalArgumentException("parameter bandwidthLimit is " + text + ": must be 1k..100G bits/s");
        }
        return v;
    }

    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("count", Integer.toString(count));
        m.put("packetSize", Integer.toString(packetSize));
        m.put("interval", Params.plain(intervalSeconds));
        m.put("bandwidthLimit", intervalSeconds > 0 ? Params.plain(Math.round(packetSize * 8 / intervalSeconds)) : "0");
        m.put("ttl", Integer.toString(ttl));
        m.put("timeout", Params.plain(timeoutSeconds));
        m.put("port", Integer.toString(port));
        m.put("protocol", "UDP");
        return m;
    }
}
