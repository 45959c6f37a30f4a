package org.nmws.service.kind;

import java.time.Instant;
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
        Map<String, Double> s = LatencyScanKind.FIGURES.summary(r);
        int sent = 0;
        int received = 0;
        for (LatencyScanResult.SizePoint pt : r.points()) {
            sent += pt.sent();
            received += pt.received();
        }
        s.put("sent", (double) sent);
        s.put("received", (double) received);
        Environment env = new Environment(host.describe("src", null),
                Environment.Host.remote(subject.dst().host(), r.remoteAddress()));
        return new Observation(0, point, Characteristic.ProbeTest.LATENCY_SCAN, subject, null, r.remoteAddress(),
                MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env, start, end, s, List.of());
    }
}
