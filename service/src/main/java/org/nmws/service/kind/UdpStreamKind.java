package org.nmws.service.kind;

import java.util.List;
import java.util.Map;
import org.nmws.probe.UdpStreamResult;
import org.nmws.probe.UdpStreamSpec;
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

/**
 * A paced one-way UDP stream: one-way delay, jitter, loss, reordering and achievable UDP
 * rate, answered as owamp and iperf datums and nmws figures, owd datums per frame.
 */
final class UdpStreamKind implements MeasurementKind<StreamParameters> {
    private static final int HISTOGRAM_BINS = 50;
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MILLISECONDS, "minDelayMs", "medianDelayMs", "meanDelayMs", "p95DelayMs", "p99DelayMs",
                    "maxDelayMs", "jitterMs", "meanAbsIpdvMs", "receiveDurationMs", "queueDelayMs",
                    "oneWayUncertaintyMs", "senderClockErrorMs", "receiverClockErrorMs")
            .of(Unit.MICROSECONDS, "senderSpacingUs", "minInterArrivalUs", "meanInterArrivalUs", "maxInterArrivalUs",
                    "interArrivalStartUs", "interArrivalBinWidthUs")
            .of(Unit.MBIT_PER_SECOND, "senderUserMbps", "offeredUserMbps", "senderWireMbps", "receiverUserMbps", "receiverWireMbps",
                    "rateBeforeLossMbps", "rateAfterLossMbps")
            .of(Unit.PERCENT, "lossPercent")
            .of(Unit.RATIO, "reorderedRatio", "lossKsDistance")
            .of(Unit.BYTES, "bufferBytes", "bufferBytesByDelay")
            .family(Unit.RATIO, "nReordering\\d+Ratio")
            .headline("medianDelayMs", "owdMs", "one-way")
            .headline("lossPercent", "lossPercent", "loss");

    /** One-way delay, loss and reordering run at a low rate beside others; an achievable-bandwidth stream fills the path. */
    @Override
    public TestClass testClass(Characteristic c) {
        return c.dottedName().startsWith("path.bandwidth") ? TestClass.EXCLUSIVE : TestClass.NORMAL;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.UDP_STREAM;
    }

    @Override
    public StreamParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return StreamParameters.parse(nmwg, c.responderPort(), c.limits().maxCount(), c.limits().maxDuration(),
                c.limits().maxRateMbps());
    }

    @Override
    public boolean raw(StreamParameters p) {
        return p.raw();
    }

    @Override
    public Observation run(StreamParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        UdpStreamResult r = runner.probe(subject, control -> {
            UdpStreamResult result = runner.engine().run(new UdpStreamSpec(dst, p.port(), p.count(), p.packetSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl(),
                    HISTOGRAM_BINS, 0, runner.testClass() != TestClass.EXCLUSIVE), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return StreamObservations.of(subject, p, r, runner);
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
