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
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MBIT_PER_SECOND, "availableMbps", "availableWireMbps", "lowerMbps", "upperMbps")
            .family(Unit.MBIT_PER_SECOND, "step\\d+(Offered|Received)Mbps")
            .family(Unit.PERCENT, "step\\d+LossPercent")
            .family(Unit.MILLISECONDS, "step\\d+DelayIncreaseMs");

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
