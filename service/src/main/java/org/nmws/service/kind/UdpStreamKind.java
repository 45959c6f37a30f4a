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
    /** A loss happened: the loss onset's figures mean something. */
    private static final java.util.function.Predicate<UdpStreamResult> LOSS = r -> r.lossOnset().firstLossSeq() >= 0;
    /** The stream's figures, UDPmon's names; StreamObservations builds the summary from them. */
    static final FigureTable<UdpStreamResult> FIGURES = new FigureTable<>(UdpStreamResult.class)
            // the delays first: readers (the CLI's tables, the grid) show a kind's headline figures in this order
            .of(Unit.MILLISECONDS, "minDelayMs=delay.minMs", "medianDelayMs=delay.medianMs", "meanDelayMs=delay.meanMs",
                    "p95DelayMs=delay.p95Ms", "p99DelayMs=delay.p99Ms", "maxDelayMs=delay.maxMs", "jitterMs=delay.jitterMs",
                    "meanAbsIpdvMs=delay.meanAbsIpdvMs",
                    // every one-way delay above is only as good as the two clocks: their summed error bound
                    "oneWayUncertaintyMs=clocks.oneWayUncertaintyMs", "senderClockErrorMs=clocks.senderErrorMs",
                    "receiverClockErrorMs=clocks.receiverErrorMs")
            .of(Unit.NONE, "sent", "received", "lost")
            .of(Unit.PERCENT, "lossPercent")
            .of(Unit.NONE, "duplicates", "outOfOrder=reordering.reordered")
            .of(Unit.RATIO, "reorderedRatio=reordering.ratio")
            .of(Unit.NONE, "reorderingMaxExtent=reordering.maxExtent")
            .family(Unit.RATIO, "nReordering\\d+Ratio")
            .of(Unit.MBIT_PER_SECOND, "senderUserMbps=sender.userMbps")
            .computed(Unit.MBIT_PER_SECOND, "offeredUserMbps")
            .computed(Unit.NONE, "senderLimited")
            .of(Unit.MBIT_PER_SECOND, "senderWireMbps=sender.wireMbps")
            .scaled(Unit.MICROSECONDS, 1e-3, "senderSpacingUs=sender.spacingNanos")
            .of(Unit.MBIT_PER_SECOND, "receiverUserMbps=receiver.userMbps", "receiverWireMbps=receiver.wireMbps")
            .computed(Unit.MILLISECONDS, "receiveDurationMs")
            .scaled(Unit.MICROSECONDS, 1e-3, "minInterArrivalUs=interArrival.minNanos",
                    "meanInterArrivalUs=interArrival.meanNanos", "maxInterArrivalUs=interArrival.maxNanos")
            // the inter-arrival histogram, UDPmon's picture of how the path spaced the frames
            .onlyIf(StreamObservations::hasHistogram, Unit.NONE, "interArrivalUnder=interArrival.under",
                    "interArrivalOver=interArrival.over")
            .computed(Unit.MICROSECONDS, "interArrivalStartUs", "interArrivalBinWidthUs")
            .family(Unit.NONE, "interArrivalBin\\d+")
            .of(Unit.NONE, "lossIntervals=lossPattern.intervals", "lossMeanIntervalFrames=lossPattern.meanIntervalFrames",
                    "lossExponentialRate=lossPattern.exponentialRate")
            .of(Unit.RATIO, "lossKsDistance=lossPattern.ksDistance")
            .onlyIf(LOSS, Unit.NONE, "firstLossSeq=lossOnset.firstLossSeq")
            .onlyIf(LOSS, Unit.MBIT_PER_SECOND, "rateBeforeLossMbps=lossOnset.rateBeforeMbps",
                    "rateAfterLossMbps=lossOnset.rateAfterMbps")
            .onlyIf(LOSS, Unit.NONE, "bufferFrames=lossOnset.bufferFrames")
            .onlyIf(LOSS, Unit.BYTES, "bufferBytes=lossOnset.bufferBytes")
            .onlyIf(LOSS, Unit.MILLISECONDS, "queueDelayMs=lossOnset.queueDelayMs")
            .onlyIf(LOSS, Unit.BYTES, "bufferBytesByDelay=lossOnset.bufferBytesByDelay")
            .of(Unit.NONE, "hostLost=hosts.receiverSocketDrops", "networkLost=hosts.networkLost")
            .headline("medianDelayMs", "owdMs", "one-way")
            .headline("lossPercent", "lossPercent", "loss")
            .chart("medianDelayMs", "owdMs", "stream")
            .chart("lossPercent", "lossPercent", "stream")
            .chart("receiverUserMbps", "throughputMbps", "UDP received");

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
