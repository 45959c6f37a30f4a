package org.nmws.service.kind;

import java.util.List;
import java.util.Map;
import org.nmws.probe.AvailableBandwidthResult;
import org.nmws.probe.AvailableBandwidthSpec;
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

/** Available bandwidth by a rate scan: the rate a path takes before delay grows or frames are lost. */
final class AvailableBandwidthKind implements MeasurementKind<BandwidthParameters> {
    /** The estimate, its bracket and each step of the scan; BandwidthObservations builds the summary from them. */
    static final FigureTable<AvailableBandwidthResult> FIGURES = new FigureTable<>(AvailableBandwidthResult.class)
            .of(Unit.MBIT_PER_SECOND, "availableMbps=estimateMbps", "availableWireMbps=estimateWireMbps", "lowerMbps",
                    "upperMbps")
            .of(Unit.NONE, "bracketed")
            .computed(Unit.NONE, "steps")
            .each("step", AvailableBandwidthResult::steps, AvailableBandwidthResult.Step.class, null, Unit.MBIT_PER_SECOND,
                    "OfferedMbps=offeredMbps", "ReceivedMbps=receivedMbps")
            .each("step", AvailableBandwidthResult::steps, AvailableBandwidthResult.Step.class, null, Unit.PERCENT,
                    "LossPercent=lossPercent")
            .each("step", AvailableBandwidthResult::steps, AvailableBandwidthResult.Step.class, null, Unit.MILLISECONDS,
                    "DelayIncreaseMs=owdIncreaseMs")
            .family(Unit.NONE, "step\\d+Congested");

    /** Self-loading streams up to the path's spare rate. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.EXCLUSIVE;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.AVAILABLE;
    }

    @Override
    public BandwidthParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return BandwidthParameters.available(nmwg, c.responderPort(), c.limits().maxDuration(), c.limits().maxRateMbps());
    }

    @Override
    public Observation run(BandwidthParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        AvailableBandwidthResult r = runner.probe(subject, control -> {
            AvailableBandwidthSpec d = AvailableBandwidthSpec.defaults(dst, p.maxMbps());
            AvailableBandwidthResult result = runner.engine().run(new AvailableBandwidthSpec(dst, p.port(),
                    p.packetSize(), d.minMbps(), d.maxMbps(), d.stepMbps(), d.refine(), Math.round(p.stepSeconds() * 1e9),
                    d.pauseNanos(), d.lossPercent(), d.rateTolerance(), d.delayThresholdNanos(), d.timeoutNanos(),
                    d.ttl()), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return BandwidthObservations.available(subject, p, r, runner);
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
