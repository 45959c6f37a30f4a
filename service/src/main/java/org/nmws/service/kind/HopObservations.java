package org.nmws.service.kind;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nmws.probe.HopListResult;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * A hop list as an observation: the route (each hop's address and name) goes in the
 * environment, the hop count and per-hop RTT figures in the summary, and each probe's
 * RTT as a frame (seq = probe number, ttl = the hop's TTL, value = RTT or -1 unanswered).
 */
final class HopObservations {
    private HopObservations() {
    }

    static Observation of(PathSubject subject, HopParameters p, HopListResult r, TestRunner runner,
                          Instant start, Instant end) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Map<String, Double> s = HopListKind.FIGURES.summary(r);
        List<Environment.RouteHop> route = new ArrayList<>();
        List<Observation.Frame> frames = new ArrayList<>();
        long startNanos = start.getEpochSecond() * 1_000_000_000L + start.getNano();
        for (HopListResult.Hop h : r.hops()) {
            route.add(new Environment.RouteHop(h.ttl(), h.address().orElse(null), h.name().orElse(null)));
            double[] rtts = h.rttMs();
            double min = Double.NaN;
            for (int i = 0; i < rtts.length; i++) {
                boolean answered = !Double.isNaN(rtts[i]);
                frames.add(new Observation.Frame(frames.size(), startNanos, answered ? Math.round(rtts[i] * 1e6) : -1,
                        p.packetSize(), h.ttl()));
                if (answered && !(rtts[i] >= min)) {
                    min = rtts[i];
                }
            }
            FigureTable.put(s, "hop" + h.ttl() + "MinRttMs", min);
        }
        Environment env = new Environment(host.describe("src", null),
                Environment.Host.remote(subject.dst().host(), r.destination()),
                route);
        return new Observation(0, point, Characteristic.ProbeTest.HOP_LIST, subject, null, r.destination(),
                MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env, start, end, s, frames);
    }
}
