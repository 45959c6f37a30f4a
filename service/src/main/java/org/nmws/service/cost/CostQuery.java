package org.nmws.service.cost;

import java.time.Duration;
import java.util.List;

/**
 * What a client asks: the cost of moving {@code bytes} from {@code src} (null: this point) to
 * each destination, on data at most {@code maxAge} old; with {@code refresh}, destinations whose
 * data is older are measured first (achievable TCP over {@code streams}), within
 * {@code timeBudget} for all of them, at the responders' {@code port} (null: the usual one). With
 * {@code protocol} UDP the rate is the forecast of the path's achievable-UDP series (what a
 * rate-based transfer tool would get) and is not refreshed: a UDP test needs a rate to offer.
 */
public record CostQuery(String src, List<String> destinations, double bytes, Duration maxAge, boolean refresh,
                        Duration timeBudget, int streams, Integer port, String protocol) {
    static final int MAX_DESTINATIONS = 100;
    static final Duration MAX_AGE = Duration.ofDays(36_500);
    /** The most a refresh may take, for one query and for all those of one message together. */
    public static final Duration MAX_BUDGET = Duration.ofMinutes(10);
    static final Duration DEFAULT_BUDGET = Duration.ofSeconds(30);

    /** With the responder's usual port. */
    public CostQuery(String src, List<String> destinations, double bytes, Duration maxAge, boolean refresh,
                     Duration timeBudget, int streams) {
        this(src, destinations, bytes, maxAge, refresh, timeBudget, streams, null, "TCP");
    }

    /** Checks what a client sent, for every dialect alike. */
    public CostQuery {
        destinations = List.copyOf(destinations);
        if (destinations.isEmpty() || destinations.size() > MAX_DESTINATIONS) {
            throw new IllegalArgumentException("give 1.." + MAX_DESTINATIONS + " destinations, got " + destinations.size());
        }
        for (String dst : destinations) {
            try {
                org.nmws.service.observation.Endpoint.parse(dst, null); // as every other use of a destination reads it
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("dst: " + e.getMessage(), e);
            }
        }
        if (!(bytes >= 1 && bytes <= 1e18)) {
            throw new IllegalArgumentException("bytes must be 1..1e18, was " + bytes);
        }
        // bounded above too: a window reaching before the epoch would overflow the clock
        if (maxAge == null || maxAge.isNegative() || maxAge.isZero() || maxAge.compareTo(MAX_AGE) > 0) {
            throw new IllegalArgumentException("maxAge must be positive and at most " + MAX_AGE + ", was " + maxAge);
        }
        if (timeBudget == null) {
            timeBudget = DEFAULT_BUDGET;
        }
        if (timeBudget.isNegative() || timeBudget.isZero() || timeBudget.compareTo(MAX_BUDGET) > 0) {
            throw new IllegalArgumentException("timeBudget must be positive and at most " + MAX_BUDGET.toSeconds() + " s");
        }
        if (streams < 1 || streams > 16) {
            throw new IllegalArgumentException("streams must be 1..16, was " + streams);
        }
        protocol = protocol == null || protocol.isBlank() ? "TCP" : protocol.trim().toUpperCase(java.util.Locale.ROOT);
        if (!protocol.equals("TCP") && !protocol.equals("UDP")) {
            throw new IllegalArgumentException("protocol must be TCP or UDP, was " + protocol);
        }
        if (port != null && (port < 1 || port > 65535)) {
            throw new IllegalArgumentException("port must be 1..65535, was " + port);
        }
        if (src != null && src.isBlank()) {
            src = null;
        }
    }

    /** The same query within at most this budget; no refresh once nothing of it is left. */
    public CostQuery within(Duration left) {
        if (!refresh || left.compareTo(timeBudget) >= 0) {
            return this;
        }
        return left.toMillis() < 1000 ? new CostQuery(src, destinations, bytes, maxAge, false, null, streams, port, protocol)
                : new CostQuery(src, destinations, bytes, maxAge, true, left, streams, port, protocol);
    }

    /** Archive data only, from this point. */
    public static CostQuery stored(List<String> destinations, double bytes, Duration maxAge) {
        return new CostQuery(null, destinations, bytes, maxAge, false, null, 1);
    }
}
