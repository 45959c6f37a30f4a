package org.nmws.service.kind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.probe.UdpStreamResult;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Turns what a UDP stream test gave into an observation: every figure UDPmon users read,
 * by name (their units are declared in UdpStreamKind),
 * the per-frame one-way delays, and both hosts' load during the test.
 */
final class StreamObservations {
    private StreamObservations() {
    }

    static Observation of(PathSubject subject, StreamParameters p, UdpStreamResult r, TestRunner runner) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("sent", (double) r.sent());
        s.put("received", (double) r.received());
        s.put("lost", (double) r.lost());
        s.put("lossPercent", r.lossPercent());
        s.put("duplicates", (double) r.duplicates());
        UdpStreamResult.Reordering ro = r.reordering();
        s.put("outOfOrder", (double) ro.reordered());
        s.put("reorderedRatio", ro.ratio());
        s.put("reorderingMaxExtent", (double) ro.maxExtent());
        double[] n = ro.nReorderingRatio();
        for (int i = 0; i < n.length; i++) {
            s.put("nReordering" + (i + 1) + "Ratio", n[i]);
        }
        UdpStreamResult.OneWayDelay d = r.delay();
        s.put("minDelayMs", d.minMs());
        s.put("medianDelayMs", d.medianMs());
        s.put("meanDelayMs", d.meanMs());
        s.put("p95DelayMs", d.p95Ms());
        s.put("p99DelayMs", d.p99Ms());
        s.put("maxDelayMs", d.maxMs());
        s.put("jitterMs", d.jitterMs());
        s.put("meanAbsIpdvMs", d.meanAbsIpdvMs());
        // every one-way delay above is only as good as the two clocks: their summed error bound
        s.put("oneWayUncertaintyMs", r.clocks().oneWayUncertaintyMs());
        s.put("senderClockErrorMs", r.clocks().senderErrorMs());
        s.put("receiverClockErrorMs", r.clocks().receiverErrorMs());
        s.put("senderUserMbps", r.sender().userMbps());
        if (p.intervalSeconds() > 0) {
            // A sender that could not keep the asked rate says so, not only in a lower senderUserMbps:
            // the path was then probed at less than was asked (tolerance as the rate scan's, 3 %).
            double offered = p.packetSize() * 8 / p.intervalSeconds() / 1e6;
            s.put("offeredUserMbps", offered);
            s.put("senderLimited", r.sender().userMbps() < offered * 0.97 ? 1.0 : 0.0);
        }
        s.put("senderWireMbps", r.sender().wireMbps());
        s.put("senderSpacingUs", r.sender().spacingNanos() / 1e3);
        s.put("receiverUserMbps", r.receiver().userMbps());
        s.put("receiverWireMbps", r.receiver().wireMbps());
        s.put("receiveDurationMs", (r.receiver().lastArrivalEpochNanos() - r.receiver().firstArrivalEpochNanos()) / 1e6);
        UdpStreamResult.Histogram h = r.interArrival();
        s.put("minInterArrivalUs", h.minNanos() / 1e3);
        s.put("meanInterArrivalUs", h.meanNanos() / 1e3);
        s.put("maxInterArrivalUs", h.maxNanos() / 1e3);
        // The inter-arrival histogram, UDPmon's picture of how the path spaced the frames.
        long[] counts = h.counts();
        if (counts.length > 0 && h.binWidthNanos() > 0) {
            s.put("interArrivalStartUs", h.startNanos() / 1e3);
            s.put("interArrivalBinWidthUs", h.binWidthNanos() / 1e3);
            for (int i = 0; i < counts.length; i++) {
                s.put("interArrivalBin" + i, (double) counts[i]);
            }
            s.put("interArrivalUnder", (double) h.under());
            s.put("interArrivalOver", (double) h.over());
        }
        UdpStreamResult.LossPattern lp = r.lossPattern();
        s.put("lossIntervals", (double) lp.intervals());
        s.put("lossMeanIntervalFrames", lp.meanIntervalFrames());
        s.put("lossExponentialRate", lp.exponentialRate());
        s.put("lossKsDistance", lp.ksDistance());
        UdpStreamResult.LossOnset lo = r.lossOnset();
        if (lo.firstLossSeq() >= 0) {
            s.put("firstLossSeq", (double) lo.firstLossSeq());
            s.put("rateBeforeLossMbps", lo.rateBeforeMbps());
            s.put("rateAfterLossMbps", lo.rateAfterMbps());
            s.put("bufferFrames", lo.bufferFrames());
            s.put("bufferBytes", lo.bufferBytes());
            s.put("queueDelayMs", lo.queueDelayMs());
            s.put("bufferBytesByDelay", lo.bufferBytesByDelay());
        }
        UdpStreamResult.Hosts hosts = r.hosts();
        s.put("hostLost", (double) hosts.receiverSocketDrops());
        s.put("networkLost", (double) hosts.networkLost());
        s.values().removeIf(v -> v == null || v.isNaN() || v.isInfinite());

        int[] seq = r.seq(); // the accessors copy: take each array once
        long[] sent = r.sendEpochNanos();
        long[] arrived = r.arrivalEpochNanos();
        long[] owd = r.owdNanos();
        int[] bytes = r.bytes();
        List<Observation.Frame> frames = new ArrayList<>(seq.length);
        for (int i = 0; i < seq.length; i++) {
            // A delay of exactly -1 ns (clock offset) is kept as -2 ns, so it is not read as lost.
            long value = arrived[i] == 0 ? Observation.Frame.LOST : owd[i] == Observation.Frame.LOST ? -2 : owd[i];
            frames.add(new Observation.Frame(seq[i], sent[i], value, bytes[i], -1));
        }
        Environment.Host src = host.describe("src", r.localAddress()).withLoad(
                new Environment.Load(hosts.senderCpuPercent(), hosts.senderInterrupts(), null));
        Environment.Host dst = Environment.Host.remote(subject.dst().host(), r.remoteAddress()).withLoad(
                new Environment.Load(hosts.receiverCpuPercent(), hosts.receiverInterrupts(), hosts.receiverSocketDrops()));
        if (!r.clocks().receiverReference().isEmpty()) {
            dst = dst.withClock(Environment.Clock.stated(r.clocks().receiverReference(),
                    Math.round(r.clocks().receiverErrorMs() * 1e6)));
        }
        return new Observation(0, point, Characteristic.ProbeTest.UDP_STREAM, subject, r.localAddress(), r.remoteAddress(),
                MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), new Environment(src, dst),
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames);
    }
}
