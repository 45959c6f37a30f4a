package org.nmws.service.kind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.probe.RoundTripResult;
import org.nmws.probe.RoundTripSpec;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Request-response round trips (UDPmon's latency test), answered as PingER summaries and ping datums. */
final class RoundTripKind implements MeasurementKind<RoundTripParameters> {
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MILLISECONDS, "minRtt", "meanRtt", "medianRtt", "maxRtt", "p99Rtt", "minIpd", "meanIpd", "maxIpd", "iqrIpd",
                    "maxHost", "p99PathRtt")
            .of(Unit.PERCENT, "lossPercent")
            .headline("medianRtt", "rttMs", "RTT")
            .headline("lossPercent", "lossPercent", "loss");

    /** A few small frames: light enough to run beside anything. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.BACKGROUND;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.ROUND_TRIP;
    }

    @Override
    public RoundTripParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return RoundTripParameters.parse(nmwg, c.responderPort(), c.limits().maxCount(), c.limits().maxDuration());
    }

    @Override
    public boolean raw(RoundTripParameters p) {
        return p.raw();
    }

    @Override
    public Observation run(RoundTripParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        RoundTripResult r = runner.probe(subject, control -> {
            RoundTripResult result = runner.engine().run(new RoundTripSpec(dst, p.port(), p.count(), p.packetSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl(), p.closedLoop(),
                    runner.testClass() != TestClass.EXCLUSIVE), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("minRtt", r.minRttMs());
        s.put("meanRtt", r.meanRttMs());
        s.put("medianRtt", r.medianRttMs());
        s.put("maxRtt", r.maxRttMs());
        s.put("p99Rtt", r.p99RttMs());
        s.put("lossPercent", r.lossPercent());
        s.put("sent", (double) r.sent());
        s.put("received", (double) r.received());
        s.put("duplicates", (double) r.duplicates());
        s.put("outOfOrder", (double) r.outOfOrder());
        s.put("minIpd", r.minIpdMs());
        s.put("meanIpd", r.meanIpdMs());
        s.put("maxIpd", r.maxIpdMs());
        s.put("iqrIpd", r.iqrIpdMs());
        // a host preempted mid-round-trip, told apart from the path (issue 25)
        s.put("stalls", (double) r.stalls());
        s.put("maxHost", r.maxHostMs());
        s.put("p99PathRtt", r.p99PathRttMs());
        s.values().removeIf(v -> v == null || v.isNaN());
        int[] seq = r.seq(); // the accessors copy: take each array once
        long[] sent = r.sendEpochNanos();
        long[] rtt = r.rttNanos();
        int[] bytes = r.bytes();
        int[] ttl = r.ttl();
        List<Observation.Frame> frames = new ArrayList<>(seq.length);
        for (int i = 0; i < seq.length; i++) {
            frames.add(new Observation.Frame(seq[i], sent[i], rtt[i], bytes[i], ttl[i]));
        }
        Environment env = new Environment(runner.host().describe("src", r.localAddress()),
                Environment.Host.remote(subject.dst().host(), r.remoteAddress()));
        return new Observation(0, runner.measurementPoint(), ProbeTest.ROUND_TRIP, subject, r.localAddress(),
                r.remoteAddress(), MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env,
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames,
                stallMarks(r));
    }

    /**
     * Each frame's host part as a sample series beside the frames ("hostNanos"), so the frames
     * a stall held can be told from the path's. Kept only for a test that had a stall: the
     * figures say enough of the others, and a series per frame would double what they store.
     */
    private static Map<String, long[]> stallMarks(RoundTripResult r) {
        return r.stalls() > 0 ? Map.of("hostNanos", r.hostNanos()) : Map.of();
    }

    @Override
    public Unit unit(String figure) {
        return UNITS.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return UNITS.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.RESPONDER;
    }
}
