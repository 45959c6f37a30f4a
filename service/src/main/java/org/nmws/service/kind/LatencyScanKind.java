package org.nmws.service.kind;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.nmws.probe.LatencyScanResult;
import org.nmws.probe.LatencyScanSpec;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Round trips over a list of frame sizes, with the least-squares line of latency against size. */
final class LatencyScanKind implements MeasurementKind<ScanParameters> {
    private static final int HISTOGRAM_BINS = 50;
    /** The fit and each size's round trips (keyed by size); ScanObservations builds the summary from them. */
    static final FigureTable<LatencyScanResult> FIGURES = new FigureTable<>(LatencyScanResult.class)
            .of(Unit.MICROSECONDS_PER_BYTE, "slopeUsPerByte")
            .of(Unit.MICROSECONDS, "interceptUs")
            .of(Unit.RATIO, "fitR2Ratio=r2")
            .each("size", LatencyScanResult::points, LatencyScanResult.SizePoint.class, LatencyScanResult.SizePoint::size,
                    Unit.NONE, "Sent=sent", "Received=received")
            .each("size", LatencyScanResult::points, LatencyScanResult.SizePoint.class, LatencyScanResult.SizePoint::size,
                    Unit.MILLISECONDS, "MinRttMs=minRttMs", "MeanRttMs=meanRttMs", "MedianRttMs=medianRttMs",
                    "MaxRttMs=maxRttMs")
            .computed(Unit.NONE, "sent", "received");

    /** Frames of every size at a steady rate: beside others, not beside throughput. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.NORMAL;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.LATENCY_SCAN;
    }

    @Override
    public ScanParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return ScanParameters.parse(nmwg, c.responderPort(), c.limits().maxCount(), c.limits().maxDuration());
    }

    @Override
    public Observation run(ScanParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        AtomicReference<Instant> started = new AtomicReference<>();
        LatencyScanResult r = runner.probe(subject, control -> {
            started.set(Instant.now()); // the engine stamps no start for a scan: take it here, after the lock
            LatencyScanResult result = runner.engine().run(new LatencyScanSpec(dst, p.port(), p.sizes(), p.countPerSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl(), HISTOGRAM_BINS,
                    p.rounds()),
                    control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return ScanObservations.of(subject, p, r, runner, started.get(), Instant.now());
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
