package org.nmws.service.measure;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parameters of the two bandwidth estimates. Capacity (packet trains): trains, trainLength
 * (frames per train), packetSize. Available bandwidth (a rate scan, as UDPmon's throughput
 * vs spacing curves): bandwidthLimit (the highest rate offered, bits/s with k/M/G),
 * packetSize, stepDuration (seconds per rate). NMWG has no names for trains: these say
 * what they are.
 */
public record BandwidthParameters(int trains, int trainLength, int packetSize, double maxMbps, double stepSeconds, int port) {

    static BandwidthParameters capacity(Map<String, String> p, int defaultPort) {
        return new BandwidthParameters(Params.integer(p, "trains", 40, 2, 1000), Params.integer(p, "trainLength", 100, 8, 10000),
                Params.integer(p, "packetSize", 1472, 200, 9000), 0, 0, Params.integer(p, "port", defaultPort, 1, 65535));
    }

    static BandwidthParameters available(Map<String, String> p, int defaultPort) {
        double max = p.containsKey("bandwidthLimit") ? StreamParameters.bitsPerSecond(p.get("bandwidthLimit")) / 1e6 : 1000;
        return new BandwidthParameters(0, 0, Params.integer(p, "packetSize", 1472, 200, 9000), max,
                Params.decimal(p, "stepDuration", 0.5, 0.05, 10), Params.integer(p, "port", defaultPort, 1, 65535));
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
