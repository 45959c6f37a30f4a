package org.nmws.service.kind;

import java.util.ArrayList;
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

    /** Whether the engine drew the inter-arrival histogram (it needs two arrivals and a bin width). */
    static boolean hasHistogram(UdpStreamResult r) {
        return r.interArrival().counts().length > 0 && r.interArrival().binWidthNanos() > 0;
    }

    static Observation of(PathSubject subject, StreamParameters p, UdpStreamResult r, TestRunner runner) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Map<String, Double> s = UdpStreamKind.FIGURES.summary(r);
        double[] n = r.reordering().nReorderingRatio();
        for (int i = 0; i < n.length; i++) {
            FigureTable.put(s, "nReordering" + (i + 1) + "Ratio", n[i]);
        }
        if (p.intervalSeconds() > 0) {
            // A sender that could not keep the asked rate says so, not only in a lower senderUserMbps:
            // the path was then probed at less than was asked (tolerance as the rate scan's, 3 %).
            double offered = p.packetSize() * 8 / p.intervalSeconds() / 1e6;
            FigureTable.put(s, "offeredUserMbps", offered);
            s.put("senderLimited", r.sender().userMbps() < offered * 0.97 ? 1.0 : 0.0);
        }
        FigureTable.put(s, "receiveDurationMs",
                (r.receiver().lastArrivalEpochNanos() - r.receiver().firstArrivalEpochNanos()) / 1e6);
        UdpStreamResult.Histogram h = r.interArrival();
        if (hasHistogram(r)) {
            FigureTable.put(s, "interArrivalStartUs", h.startNanos() / 1e3);
            FigureTable.put(s, "interArrivalBinWidthUs", h.binWidthNanos() / 1e3);
            long[] counts = h.counts();
            for (int i = 0; i < counts.length; i++) {
                s.put("interArrivalBin" + i, (double) counts[i]);
            }
        }
        UdpStreamResult.Hosts hosts = r.hosts();

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
