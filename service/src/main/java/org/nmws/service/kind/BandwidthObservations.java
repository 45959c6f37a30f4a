package org.nmws.service.kind;

import java.util.List;
import java.util.Map;
import org.nmws.probe.AvailableBandwidthResult;
import org.nmws.probe.CapacityResult;
import org.nmws.probe.HopCapacityResult;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/** Capacity and available-bandwidth estimates as observations: the estimate, its spread or bracket, and the curve. */
final class BandwidthObservations {
    private BandwidthObservations() {
    }

    static Observation capacity(PathSubject subject, BandwidthParameters p, CapacityResult r, TestRunner runner) {
        Map<String, Double> s = CapacityKind.FIGURES.summary(r);
        return observation(Characteristic.ProbeTest.CAPACITY, subject, p.asCapacityNmwg(), r.localAddress(), r.remoteAddress(),
                r.startEpochNanos(), r.endEpochNanos(), s, runner);
    }

    /**
     * Capacity up to each hop: per hop the frame-level and user-level estimate, its spread and
     * the trains it rests on (hop{ttl}...); the route in the environment.
     */
    static Observation perHop(PathSubject subject, HopCapacityParameters p, HopCapacityResult r, TestRunner runner) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Map<String, Double> s = HopCapacityKind.FIGURES.summary(r);
        List<Environment.RouteHop> route = new java.util.ArrayList<>();
        double bottleneck = Double.NaN;
        for (HopCapacityResult.HopEstimate h : r.hops()) {
            route.add(new Environment.RouteHop(h.ttl(), h.address().orElse(null), null));
            // The narrowest hop measured; a hop without an estimate (no train came back) says nothing.
            double c = h.estimate().frameMbps();
            if (!h.lowerBound() && !Double.isNaN(c) && (Double.isNaN(bottleneck) || c < bottleneck)) {
                bottleneck = c;
            }
        }
        FigureTable.put(s, "bottleneckFrameMbps", bottleneck);
        Environment env = new Environment(host.describe("src", null),
                Environment.Host.remote(subject.dst().host(), r.destination()), route);
        return new Observation(0, point, Characteristic.ProbeTest.HOP_CAPACITY, subject, null, r.destination(),
                MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env, MeasurementService.instant(r.startEpochNanos()),
                MeasurementService.instant(r.endEpochNanos()), s, List.of());
    }

    static Observation available(PathSubject subject, BandwidthParameters p, AvailableBandwidthResult r, TestRunner runner) {
        Map<String, Double> s = AvailableBandwidthKind.FIGURES.summary(r);
        List<AvailableBandwidthResult.Step> steps = r.steps();
        s.put("steps", (double) steps.size());
        for (int i = 0; i < steps.size(); i++) {
            s.put("step" + i + "Congested", steps.get(i).congested() ? 1.0 : 0.0);
        }
        return observation(Characteristic.ProbeTest.AVAILABLE, subject, p.asAvailableNmwg(), r.localAddress(), r.remoteAddress(),
                r.startEpochNanos(), r.endEpochNanos(), s, runner);
    }

    private static Observation observation(Characteristic.ProbeTest test, PathSubject subject, Map<String, String> params,
                                           String local, String remote, long start, long end, Map<String, Double> summary,
                                           TestRunner runner) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Environment env = new Environment(host.describe("src", local),
                Environment.Host.remote(subject.dst().host(), remote));
        return new Observation(0, point, test, subject, local, remote, MeasurementService.TOOL, runner.engine().version(), params, env,
                MeasurementService.instant(start), MeasurementService.instant(end), summary, List.of());
    }
}
