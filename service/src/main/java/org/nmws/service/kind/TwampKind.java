package org.nmws.service.kind;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.probe.OwampResult;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * Round trip and both one-way delays to any full TWAMP server (twampd on a perfSONAR host, a
 * router's TWAMP responder, nmprobe-owampd), asked for with protocol=TWAMP: a control session
 * on TCP (RFC 5357), then one test session reflected by the server. Figures carry the STAMP
 * kind's names, so both read alike everywhere; TWAMP-Light without control is protocol=STAMP.
 */
final class TwampKind extends ControlSessionKind {
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MILLISECONDS, "minRtt", "medianRtt", "meanRtt", "p99Rtt", "maxRtt", "minForwardMs",
                    "medianForwardMs", "maxForwardMs", "minBackwardMs", "medianBackwardMs", "maxBackwardMs",
                    "senderErrorMs", "reflectorErrorMs", "oneWayUncertaintyMs")
            .of(Unit.PERCENT, "lossPercent")
            .headline("medianRtt", "rttMs", "RTT")
            .headline("lossPercent", "lossPercent", "loss");
    TwampKind(Path keyFile) {
        super(true, UNITS, keyFile);
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.TWAMP;
    }

    @Override
    public Observation run(ControlSessionParameters p, PathSubject subject, TestRunner runner)
            throws MeasurementException {
        String dst = subject.dst().host();
        OwampResult r = session(p, subject, runner);
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("minRtt", r.minRttMs());
        s.put("medianRtt", r.medianRttMs());
        s.put("meanRtt", r.meanRttMs());
        s.put("p99Rtt", r.p99RttMs());
        s.put("maxRtt", r.maxRttMs());
        s.put("lossPercent", r.lossPercent());
        s.put("sent", (double) r.sent());
        s.put("received", (double) r.received());
        s.put("duplicates", (double) r.duplicates());
        if (r.skipped() > 0) {
            s.put("skipped", (double) r.skipped());
        }
        // A TWAMP reflector numbers what it received (RFC 5357 4.2.1), so a gap is loss on the way there.
        s.put("forwardLost", (double) r.forwardLost());
        s.put("minForwardMs", r.minForwardMs());
        s.put("medianForwardMs", r.medianForwardMs());
        s.put("maxForwardMs", r.maxForwardMs());
        s.put("minBackwardMs", r.minBackwardMs());
        s.put("medianBackwardMs", r.medianBackwardMs());
        s.put("maxBackwardMs", r.maxBackwardMs());
        s.put("senderErrorMs", r.senderErrorMs());
        s.put("reflectorErrorMs", r.remoteErrorMs());
        s.put("oneWayUncertaintyMs", r.oneWayUncertaintyMs());
        s.put("reflectorSynchronised", r.remoteSynchronised() ? 1.0 : 0.0);
        s.values().removeIf(v -> v == null || v.isNaN());
        List<Observation.Frame> frames = frames(p, r);
        Environment env = new Environment(runner.host().describe("src", r.localAddress()),
                Environment.Host.remote(dst, r.remoteAddress()));
        return new Observation(0, runner.measurementPoint(), ProbeTest.TWAMP, subject, r.localAddress(),
                r.remoteAddress(), MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env,
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames);
    }
}
