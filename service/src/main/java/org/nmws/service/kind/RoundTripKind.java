package org.nmws.service.kind;

import java.util.ArrayList;
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
    private static final FigureTable<RoundTripResult> FIGURES = new FigureTable<>(RoundTripResult.class)
            .of(Unit.MILLISECONDS, "minRtt=minRttMs", "meanRtt=meanRttMs", "medianRtt=medianRttMs", "maxRtt=maxRttMs",
                    "p99Rtt=p99RttMs")
            .of(Unit.PERCENT, "lossPercent")
            .of(Unit.NONE, "sent", "received", "duplicates", "outOfOrder")
            .of(Unit.MILLISECONDS, "minIpd=minIpdMs", "meanIpd=meanIpdMs", "maxIpd=maxIpdMs", "iqrIpd=iqrIpdMs")
            // a host preempted mid-round-trip, told apart from the path (issue 25)
            .of(Unit.NONE, "stalls")
            .of(Unit.MILLISECONDS, "maxHost=maxHostMs", "p99PathRtt=p99PathRttMs")
            .headline("medianRtt", "rttMs", "RTT")
            .headline("lossPercent", "lossPercent", "loss")
            .chart("medianRtt", "rttMs", "round trip")
            .chart("lossPercent", "lossPercent", "round trip");

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
        Map<String, Double> s = FIGURES.summary(r);
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
        return FIGURES.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return FIGURES.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.RESPONDER;
    }
}
