package org.nmws.service.kind;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Params;

/**
 * Parameters of capacity hop by hop (path.bandwidth.capacity with perHop=true): trains and
 * trainLength per hop, packetSize, maxTtl. No responder is needed: the routers' ICMP
 * replies to TTL-limited trains give the dispersion; port says where the destination's
 * responder would listen, asked only to tell whether the host agreed to more than the
 * unagreed bound (0: the service's nmws.responder-port).
 */
public record HopCapacityParameters(int trains, int trainLength, int packetSize, int maxTtl, int responderPort) {

    /** Consent checked at the service's responder port. */
    public HopCapacityParameters(int trains, int trainLength, int packetSize, int maxTtl) {
        this(trains, trainLength, packetSize, maxTtl, 0);
    }

    /** Every parameter name capacity hop by hop reads (perHop=true chose it). */
    static final java.util.Set<String> READS = java.util.Set.of("trains", "trainLength", "maxTtl", "packetSize", "perHop",
            "protocol", "port");

    static HopCapacityParameters parse(Map<String, String> p, int maxCount) {
        ParameterNames.check(p, "capacity hop by hop", READS);
        ParameterNames.protocol(p, "UDP", "");
        int trains = Params.integer(p, "trains", 30, 2, 1000);
        int length = Params.integer(p, "trainLength", 64, 8, 1000); // the engine's NMP_HOPCAP_MAX_LEN
        int maxTtl = Params.integer(p, "maxTtl", 30, 1, 64);
        long limit = Math.min(maxCount, 2_000_000); // the service's max-count, within the engine's own bound
        if ((long) trains * length * maxTtl > limit) {
            throw new IllegalArgumentException("trains " + trains + " x trainLength " + length + " x maxTtl " + maxTtl
                    + " frames exceeds this service's limit of " + limit);
        }
        return new HopCapacityParameters(trains, length, Params.integer(p, "packetSize", 1472, 200, 9000), maxTtl,
                Params.integer(p, "port", 0, 1, 65535));
    }

    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("perHop", "true");
        m.put("trains", Integer.toString(trains));
        m.put("trainLength", Integer.toString(trainLength));
        m.put("packetSize", Integer.toString(packetSize));
        m.put("maxTtl", Integer.toString(maxTtl));
        m.put("protocol", "UDP");
        return m;
    }
}
