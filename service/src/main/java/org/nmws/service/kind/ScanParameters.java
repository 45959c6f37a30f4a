package org.nmws.service.kind;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.nmws.probe.LatencyScanSpec;
import org.nmws.service.observation.Params;

/**
 * Parameters of a latency scan (UDPmon's latency vs frame size): packetSizes (a comma
 * list of UDP payload sizes, 2..64 of them), count (frames per size), interval, timeout,
 * ttl, port, rounds. Deployed NMWG has no name for the size list, so it takes the plural of
 * packetSize. The sizes are measured in rounds (up to 4, each a share of every size's frames),
 * so a transient on a host touches every size a little rather than bending the fitted line;
 * each round may wait the timeout for a lost reply, so rounds default to as many as the
 * duration limit allows in that worst case (1 is the scan as it ran before rounds).
 */
public record ScanParameters(int[] sizes, int countPerSize, double intervalSeconds, int ttl, double timeoutSeconds,
                             int port, int rounds) {
    public static final String SIZES = "packetSizes";

    /** Every parameter name a scan reads. */
    static final java.util.Set<String> READS = java.util.Set.of(SIZES, "count", "interval", "timeout", "ttl", "port",
            "rounds", "protocol");

    public static ScanParameters parse(Map<String, String> p, int defaultPort, int maxCount, Duration maxDuration) {
        ParameterNames.check(p, "a latency scan", READS);
        ParameterNames.protocol(p, "UDP", "");
        String list = p.getOrDefault(SIZES, "");
        int[] sizes;
        try {
            sizes = Arrays.stream(list.split("[,\\s]+")).filter(t -> !t.isEmpty())
                    .mapToInt(t -> {
                        if (!t.matches("\\d{1,5}")) { // ASCII digits only: parseInt takes other scripts' too
                            throw new NumberFormatException();
                        }
                        return Integer.parseInt(t);
                    }).toArray();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter packetSizes is '" + Params.echo(list) + "': expected a comma list of sizes such as 64,512,1472");
        }
        if (sizes.length < 2 || sizes.length > 64) {
            throw new IllegalArgumentException("parameter packetSizes has " + sizes.length + " sizes: must be 2..64");
        }
        for (int s : sizes) {
            if (s < RoundTripParameters.MIN_PACKET_SIZE || s > RoundTripParameters.MAX_PACKET_SIZE) {
                throw new IllegalArgumentException("parameter packetSizes holds " + s + ": each must be "
                        + RoundTripParameters.MIN_PACKET_SIZE + ".." + RoundTripParameters.MAX_PACKET_SIZE);
            }
        }
        int count = Params.integer(p, "count", 100, 1, maxCount);
        double interval = Params.decimal(p, "interval", 0.0001, 0.0, 60.0);
        double timeout = Params.decimal(p, "timeout", 1.0, 0.001, 60.0);
        int ttl = Params.integer(p, "ttl", 0, 0, 255);
        int port = Params.integer(p, "port", defaultPort, 1, 65535);
        if ((long) count * sizes.length > LatencyScanSpec.MAX_FRAMES) {
            throw new IllegalArgumentException("count " + count + " x " + sizes.length + " sizes is more than the "
                    + LatencyScanSpec.MAX_FRAMES + " frames a scan keeps");
        }
        double sending = (double) count * sizes.length * interval;
        Params.withinDuration(sending + timeout * sizes.length, maxDuration,
                "%d sizes x count %d x interval %.6f s (+ timeouts)", sizes.length, count, interval);
        int fit = (int) Math.max(1, Math.min(Math.min(LatencyScanSpec.DEFAULT_ROUNDS, count),
                Math.floor((maxDuration.toSeconds() - sending) / (timeout * sizes.length)))); // as withinDuration reads it
        int rounds = Params.integer(p, "rounds", fit, 1, Math.min(LatencyScanSpec.MAX_ROUNDS, count));
        Params.withinDuration(sending + timeout * sizes.length * rounds, maxDuration,
                "%d sizes x count %d x interval %.6f s (+ a timeout a size in each of %d rounds)", sizes.length, count,
                interval, rounds);
        return new ScanParameters(sizes, count, interval, ttl, timeout, port, rounds);
    }

    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(SIZES, Arrays.stream(sizes).mapToObj(Integer::toString).collect(Collectors.joining(",")));
        m.put("count", Integer.toString(countPerSize));
        m.put("interval", Params.plain(intervalSeconds));
        m.put("ttl", Integer.toString(ttl));
        m.put("timeout", Params.plain(timeoutSeconds));
        m.put("port", Integer.toString(port));
        m.put("rounds", Integer.toString(rounds));
        m.put("protocol", "UDP");
        return m;
    }
}
