package org.nmws.service.kind;

import java.util.List;
import java.util.Map;
import org.nmws.probe.HopCapacityResult;
import org.nmws.probe.HopCapacitySpec;
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

/** Capacity hop by hop from the dispersion of ICMP answers to TTL-limited trains (Trace-Rate's way). */
final class HopCapacityKind implements MeasurementKind<HopCapacityParameters> {

    /** Per hop (by TTL) what capacity gives for the path, and the narrowest; BandwidthObservations builds the summary. */
    static final FigureTable<HopCapacityResult> FIGURES = new FigureTable<>(HopCapacityResult.class)
            .of(Unit.NONE, "hopCount", "reached")
            .each("hop", HopCapacityResult::hops, HopCapacityResult.HopEstimate.class, HopCapacityResult.HopEstimate::ttl,
                    Unit.MBIT_PER_SECOND, "CapacityFrameMbps=estimate.frameMbps", "CapacityMbps=estimate.userMbps",
                    "IqrMbps=spread.iqrMbps")
            .each("hop", HopCapacityResult::hops, HopCapacityResult.HopEstimate.class, HopCapacityResult.HopEstimate::ttl,
                    Unit.NONE, "TrainsUsed=trains.used", "LowerBound=lowerBound", "EndsOnly=endsOnly")
            .computed(Unit.MBIT_PER_SECOND, "bottleneckFrameMbps");

    /** Towards a host without a responder: about what a few traceroutes send. */
    static final int UNAGREED_FRAMES = 10_000;
    static final int UNAGREED_SIZE = 1500;

    /** Packet trains to every hop: as capacity, nothing may share the path. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.EXCLUSIVE;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.HOP_CAPACITY;
    }

    @Override
    public HopCapacityParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        HopCapacityParameters p = HopCapacityParameters.parse(nmwg, c.limits().maxCount());
        // consent is asked of the responder at this service's port only (see HopListKind)
        if (p.responderPort() != 0 && p.responderPort() != c.responderPort()) {
            throw new IllegalArgumentException("parameter port is " + p.responderPort() + ": capacity hop by hop asks the"
                    + " destination's consent of the responder at this service's port " + c.responderPort() + " only");
        }
        return new HopCapacityParameters(p.trains(), p.trainLength(), p.packetSize(), p.maxTtl(), c.responderPort());
    }

    @Override
    public Observation run(HopCapacityParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        long frames = (long) p.trains() * p.trainLength() * p.maxTtl();
        if ((frames > UNAGREED_FRAMES || p.packetSize() > UNAGREED_SIZE) && !runner.responderAgrees(subject, p.responderPort())) {
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, dst + " runs no nmws responder, so it has not "
                    + "agreed to be measured: capacity hop by hop towards it is limited to " + UNAGREED_FRAMES
                    + " frames of at most " + UNAGREED_SIZE + " bytes (asked " + frames + " of " + p.packetSize() + ")");
        }
        HopCapacityResult r = runner.probe(subject, control -> {
            HopCapacitySpec d = HopCapacitySpec.defaults(dst);
            HopCapacityResult result = runner.engine().run(new HopCapacitySpec(dst, 0, p.maxTtl(), p.trains(),
                    p.trainLength(), -1, p.packetSize(), d.gapNanos(), d.waitNanos(), d.firstPort()), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return BandwidthObservations.perHop(subject, p, r, runner);
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
        return FarEnd.ROUTERS;
    }
}
