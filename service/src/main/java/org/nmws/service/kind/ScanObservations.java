package org.nmws.service.kind;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.probe.LatencyScanResult;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * A latency scan as an observation: per frame size the RTT figures (named size{S}...), and
 * the least-squares line through the per-size minima (slope in us/byte: the per-byte cost
 * of the path and hosts; intercept in us: the fixed cost) with its r^2.
 */
final class ScanObservations {
    private ScanObservations() {
    }

    static Observation of(PathSubject subject, ScanParameters p, LatencyScanResult r, TestRunner runner,
                          Instant start, Instant end) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("slopeUsPerByte", r.slopeUsPerByte());
        s.put("interceptUs", r.interceptUs());
        s.put("fitR2Ratio", r.r2());
        int sent = 0;
        int received = 0;
        for (LatencyScanResult.SizePoint pt : r.points()) {
            String k = "size" + pt.size();
            s.put(k + "Sent", (double) pt.sent());
            s.put(k + "Received", (double) pt.received());
            s.put(k + "MinRttMs", pt.minRttMs());
            s.put(k + "MeanRttMs", pt.meanRttMs());
            s.put(k + "MedianRttMs", pt.medianRttMs());
            s.put(k + "MaxRttMs", pt.maxRttMs());
            sent += pt.sent();
            received += pt.received();
        }
        s.put("sent", (double) sent);
        s.put("received", (double) received);
        s.values().removeIf(v -> v == null || v.isNaN() || v.isInfinite());
        Environment env = new Environment(host.describe("src", null),
                Environment.Host.remote(subject.dst().host(), r.remoteAddress()));
        return new Observation(0, point, Characteristic.ProbeTest.LATENCY_SCAN, subject, null, r.remoteAddress(),
                MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env, start, end, s, List.of());
    }
}
