package org.nmws.service.kind;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Params;

/**
 * Parameters of a hop list, by traceroute's NMWG names: maxTtl, probesPerHop (queries per
 * hop), waitTime (seconds per probe), packetSize, resolve (look up hop names); port: where
 * the destination's responder would listen, asked only to tell whether the host agreed to more
 * than traceroute sends (0: the service's nmws.responder-port).
 */
public record HopParameters(int maxTtl, int probesPerHop, double waitSeconds, int packetSize, boolean resolve,
                            int responderPort) {

    /** Consent checked at the service's responder port. */
    public HopParameters(int maxTtl, int probesPerHop, double waitSeconds, int packetSize, boolean resolve) {
        this(maxTtl, probesPerHop, waitSeconds, packetSize, resolve, 0);
    }

    /** Probes the engine keeps in flight at once (nmp_hops' default parallelism). */
    private static final int IN_FLIGHT = 16;

    /** Every parameter name a hop list reads. */
    static final java.util.Set<String> READS = java.util.Set.of("maxTtl", "probesPerHop", "waitTime", "packetSize",
            "resolve", "protocol", "port");

    static HopParameters parse(Map<String, String> p, java.time.Duration maxDuration) {
        ParameterNames.check(p, "a hop list", READS);
        ParameterNames.protocol(p, "UDP", " (its probes are UDP, as traceroute's)");
        HopParameters h = new HopParameters(Params.integer(p, "maxTtl", 30, 1, 64),
                Params.integer(p, "probesPerHop", 3, 1, 10),
                Params.decimal(p, "waitTime", 1.0, 0.01, 10),
                Params.integer(p, "packetSize", 40, 32, 1472),
                Params.bool(p, "resolve"), Params.integer(p, "port", 0, 1, 65535));
        // The longest a hop list can take: every probe unanswered, IN_FLIGHT waiting at a time.
        long rounds = ((long) h.maxTtl * h.probesPerHop + IN_FLIGHT - 1) / IN_FLIGHT;
        Params.withinDuration(rounds * h.waitSeconds, maxDuration, "maxTtl %d x probesPerHop %d / %d in flight x waitTime %s s",
                h.maxTtl, h.probesPerHop, IN_FLIGHT, Params.plain(h.waitSeconds));
        return h;
    }

    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("maxTtl", Integer.toString(maxTtl));
        m.put("probesPerHop", Integer.toString(probesPerHop));
        m.put("waitTime", Params.plain(waitSeconds));
        m.put("packetSize", Integer.toString(packetSize));
        m.put("resolve", Boolean.toString(resolve));
        m.put("protocol", "UDP");
        return m;
    }
}
