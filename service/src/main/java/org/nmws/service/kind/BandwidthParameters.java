package org.nmws.service.kind;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Params;

/**
 * Parameters of the two bandwidth estimates. Capacity (packet trains): trains, trainLength
 * (frames per train), packetSize. Available bandwidth (a rate scan, as UDPmon's throughput
 * vs spacing curves): bandwidthLimit (the highest rate offered, bits/s with k/M/G),
 * packetSize, stepDuration (seconds per rate). NMWG has no names for trains: these say
 * what they are.
 */
public record BandwidthParameters(int trains, int trainLength, int packetSize, double maxMbps, double stepSeconds, int port) {

    /** Every parameter name capacity reads (perHop=false chose it; role and direction: this host sends). */
    static final java.util.Set<String> CAPACITY_READS = java.util.Set.of("trains", "trainLength", "packetSize", "port",
            "perHop", "protocol", "role", "direction");
    /** Every parameter name available bandwidth reads. */
    static final java.util.Set<String> AVAILABLE_READS = java.util.Set.of("bandwidthLimit", "stepDuration", "packetSize",
            "port", "protocol", "role", "direction");

    static BandwidthParameters capacity(Map<String, String> p, int defaultPort, int maxCount) {
        ParameterNames.check(p, "capacity", CAPACITY_READS);
        ParameterNames.sendsFromHere(p);
        ParameterNames.protocol(p, "UDP", "");
        int trains = Params.integer(p, "trains", 40, 2, 1000);
        int length = Params.integer(p, "trainLength", 100, 8, 10000);
        if ((long) trains * length > maxCount) {
            throw new IllegalArgumentException("trains " + trains + " x trainLength " + length + " = " + (long) trains * length
                    + " frames exceeds this service's limit of " + maxCount);
        }
        return new BandwidthParameters(trains, length, Params.integer(p, "packetSize", 1472, 200, 9000), 0, 0,
                Params.integer(p, "port", defaultPort, 1, 65535));
    }

    /** The engine scans maxMbps in steps of a tenth, then bisects 4 times: at most 15 steps. */
    static final int MAX_STEPS = 15;
    /** Per step besides its sending time: the pause that lets queues drain and the wait for the last frame. */
    static final double STEP_OVERHEAD_SECONDS = 0.7;

    /** The highest rate a scan may offer, as the engine takes it (AvailableBandwidthSpec's maxMbps). */
    static final double MIN_SCAN_MBPS = 0.1;
    static final double MAX_SCAN_MBPS = 100_000;

    static BandwidthParameters available(Map<String, String> p, int defaultPort, java.time.Duration maxDuration,
                                         double maxRateMbps) {
        ParameterNames.check(p, "available bandwidth", AVAILABLE_READS);
        ParameterNames.sendsFromHere(p);
        ParameterNames.protocol(p, "UDP", "");
        double max = p.containsKey("bandwidthLimit") ? StreamParameters.bitsPerSecond(p.get("bandwidthLimit")) / 1e6
                : maxRateMbps > 0 ? Math.min(maxRateMbps, MAX_SCAN_MBPS) : 1000;
        if (maxRateMbps > 0 && max > maxRateMbps) {
            throw new IllegalArgumentException("a scan up to " + Params.plain(max) + " Mbit/s is over this client's limit of "
                    + Params.plain(maxRateMbps) + " Mbit/s: give bandwidthLimit");
        }
        if (max < MIN_SCAN_MBPS) {
            throw new IllegalArgumentException("a scan up to " + Params.plain(max) + " Mbit/s is below the least it can offer,"
                    + " 0.1 Mbit/s: give bandwidthLimit of at least 100k");
        }
        double step = Params.decimal(p, "stepDuration", 0.5, 0.05, 10);
        double worst = MAX_STEPS * (step + STEP_OVERHEAD_SECONDS);
        if (worst > maxDuration.toSeconds()) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                    "stepDuration %.2f s makes a scan of up to %.0f s, over this service's limit of %d s", step, worst,
                    maxDuration.toSeconds()));
        }
        return new BandwidthParameters(0, 0, Params.integer(p, "packetSize", 1472, 200, 9000), max, step,
                Params.integer(p, "port", defaultPort, 1, 65535));
    }

    Map<String, String> asCapacityNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("trains", Integer.toString(trains));
        m.put("trainLength", Integer.toString(trainLength));
        m.put("packetSize", Integer.toString(packetSize));
        m.put("port", Integer.toString(port));
        m.put("protocol", "UDP");
        return m;
    }

    Map<String, String> asAvailableNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bandwidthLimit", Params.plain(maxMbps * 1e6));
        m.put("packetSize", Integer.toString(packetSize));
        m.put("stepDuration", Params.plain(stepSeconds));
        m.put("port", Integer.toString(port));
        m.put("protocol", "UDP");
        return m;
    }
}
