package org.nmws.service.kind;

import java.nio.file.Path;
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
    private static final FigureTable<OwampResult> FIGURES = new FigureTable<>(OwampResult.class)
            .of(Unit.MILLISECONDS, "minRtt=minRttMs", "medianRtt=medianRttMs", "meanRtt=meanRttMs", "p99Rtt=p99RttMs",
                    "maxRtt=maxRttMs")
            .of(Unit.PERCENT, "lossPercent")
            .of(Unit.NONE, "sent", "received", "duplicates")
            .onlyIf(r -> r.skipped() > 0, Unit.NONE, "skipped")
            // A TWAMP reflector numbers what it received (RFC 5357 4.2.1), so a gap is loss on the way there.
            .of(Unit.NONE, "forwardLost")
            .of(Unit.MILLISECONDS, "minForwardMs", "medianForwardMs", "maxForwardMs", "minBackwardMs", "medianBackwardMs",
                    "maxBackwardMs", "senderErrorMs", "reflectorErrorMs=remoteErrorMs", "oneWayUncertaintyMs")
            .of(Unit.NONE, "reflectorSynchronised=remoteSynchronised")
            .headline("medianRtt", "rttMs", "RTT")
            .headline("lossPercent", "lossPercent", "loss")
            .chart("medianRtt", "rttMs", "TWAMP")
            .chart("medianForwardMs", "owdMs", "TWAMP forward")
            .chart("lossPercent", "lossPercent", "TWAMP");

    TwampKind(Path keyFile) {
        super(true, FIGURES, keyFile);
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
        Map<String, Double> s = FIGURES.summary(r);
        List<Observation.Frame> frames = frames(p, r);
        Environment env = new Environment(runner.host().describe("src", r.localAddress()),
                Environment.Host.remote(dst, r.remoteAddress()));
        return new Observation(0, runner.measurementPoint(), ProbeTest.TWAMP, subject, r.localAddress(),
                r.remoteAddress(), MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env,
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames);
    }
}
