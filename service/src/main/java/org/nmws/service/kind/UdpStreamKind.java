package org.nmws.service.kind;

import org.nmws.service.measure.TestClass;

import java.util.Map;
import org.nmws.probe.Probe;
import org.nmws.probe.UdpStreamResult;
import org.nmws.probe.UdpStreamSpec;
import org.nmws.service.observation.Environment;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.nmwg.DataForm;
import org.nmws.service.nmwg.NmwgData;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * A paced one-way UDP stream: one-way delay, jitter, loss, reordering and achievable UDP
 * rate, answered as owamp and iperf datums and nmws figures, owd datums per frame.
 */
final class UdpStreamKind implements MeasurementKind<StreamParameters>, DataForm {
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
            .family(Unit.RATIO, "nReordering\\d+Ratio");

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
            UdpStreamResult result = Probe.udpStream(new UdpStreamSpec(dst, p.port(), p.count(), p.packetSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl(),
                    HISTOGRAM_BINS, 0), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return StreamObservations.of(subject, p, r, runner.measurementPoint(), runner.host());
    }

    @Override
    public Unit unit(String figure) {
        return UNITS.unit(figure);
    }

    private static Long count(Map<String, Double> figures, String name) {
        Double v = figures.get(name);
        return v == null ? null : v.longValue();
    }

    /**
     * The owamp summary datum (delays in seconds, as owamp clients read them), the iperf
     * datum (throughput in bit/s, jitter, loss) as bwctl clients read it, one nmws figure per
     * further figure, and one owd datum per frame when asked.
     */
    @Override
    public void write(NmwgData out, Observation o, boolean raw) {
        Map<String, Double> f = o.summary();
        org.nmws.schema.owamp.summary.Datum summary = new org.nmws.schema.owamp.summary.Datum();
        summary.setTimeType("unix");
        summary.setStartTime(NmwgData.unixTime(o.start()));
        summary.setEndTime(NmwgData.unixTime(o.end()));
        // An imported observation may lack figures: an absent one is left out, never made up.
        summary.setSent(count(f, "sent"));
        summary.setLoss(count(f, "lost"));
        summary.setDuplicates(count(f, "duplicates"));
        if (f.containsKey("minDelayMs") && f.containsKey("maxDelayMs")) {
            summary.setMinDelay(NmwgData.significant(f.get("minDelayMs") / 1e3));
            summary.setMaxDelay(NmwgData.significant(f.get("maxDelayMs") / 1e3));
        }
        // owamp's maxError is the delays' error from both clocks; older observations knew only the sender's
        Double uncertainty = f.get("oneWayUncertaintyMs");
        Environment.Clock clock = o.environment().src() == null ? null : o.environment().src().clock();
        if (uncertainty != null) {
            summary.setMaxError(NmwgData.significant(uncertainty / 1e3));
        } else if (clock != null && clock.maxErrorUs() != null) {
            summary.setMaxError(clock.maxErrorUs() / 1e6);
        }
        out.add(summary);
        org.nmws.schema.iperf.Datum iperf = new org.nmws.schema.iperf.Datum();
        iperf.setTimeType("unix");
        iperf.setTimeValue(NmwgData.unixTime(o.start()));
        if (f.containsKey("receiverUserMbps")) {
            iperf.setThroughput(NmwgData.significant(f.get("receiverUserMbps") * 1e6));
        }
        if (f.containsKey("meanAbsIpdvMs")) {
            iperf.setJitter(NmwgData.significant(f.get("meanAbsIpdvMs")));
        }
        iperf.setLost(count(f, "lost"));
        iperf.setSent(count(f, "sent"));
        out.add(iperf);
        out.figures(o, this::unit);
        if (raw) {
            for (Observation.Frame fr : o.frames()) {
                org.nmws.schema.owamp.owd.Datum d = new org.nmws.schema.owamp.owd.Datum();
                d.setSequenceNumber(fr.seq());
                d.setTimeType("unix");
                d.setSendTime(NmwgData.unixTime(fr.sendEpochNanos()));
                if (!fr.lost()) {
                    d.setReceiveTime(NmwgData.unixTime(fr.sendEpochNanos() + fr.valueNanos()));
                }
                d.setNumBytes(Math.toIntExact(fr.bytes()));
                if (uncertainty != null) {
                    d.setTimeError(NmwgData.significant(uncertainty / 1e3));
                }
                out.add(d);
            }
        }
    }
}
