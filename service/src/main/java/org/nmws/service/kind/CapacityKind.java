package org.nmws.service.kind;

import java.util.List;
import java.util.Map;
import org.nmws.probe.CapacityResult;
import org.nmws.probe.CapacitySpec;
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

/** Path capacity by packet-train dispersion to a responder. */
final class CapacityKind implements MeasurementKind<BandwidthParameters> {
    /** The estimate, its spread and the trains it rests on; BandwidthObservations builds the summary from them. */
    static final FigureTable<CapacityResult> FIGURES = new FigureTable<>(CapacityResult.class)
            .of(Unit.MBIT_PER_SECOND, "capacityMbps=estimate.userMbps", "capacityFrameMbps=estimate.frameMbps",
                    "capacityWireMbps=estimate.wireMbps", "p10Mbps=spread.p10Mbps", "p25Mbps=spread.p25Mbps",
                    "p75Mbps=spread.p75Mbps", "p90Mbps=spread.p90Mbps", "iqrMbps=spread.iqrMbps", "trainHeadMbps=headUserMbps")
            .of(Unit.NONE, "trainsSent=trains.trainsSent", "trainsUsed=trains.trainsUsed", "trainsDiscardedLoss=trains.discardedLoss",
                    "trainsDiscardedReordered=trains.discardedReordered",
                    "trainsDiscardedSenderLimited=trains.discardedSenderLimited");

    /** Back-to-back packet trains: their dispersion is the figure, so nothing may share the path. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.EXCLUSIVE;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.CAPACITY;
    }

    @Override
    public BandwidthParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return BandwidthParameters.capacity(nmwg, c.responderPort(), c.limits().maxCount());
    }

    @Override
    public Observation run(BandwidthParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        CapacityResult r = runner.probe(subject, control -> {
            CapacityResult result = runner.engine().run(new CapacitySpec(dst, p.port(), p.trains(), p.trainLength(),
                    p.packetSize(), 0, 0, 500_000_000L, 0), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return BandwidthObservations.capacity(subject, p, r, runner);
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
