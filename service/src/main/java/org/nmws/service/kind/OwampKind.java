package org.nmws.service.kind;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.nmws.probe.OwampResult;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * One-way delay, loss, duplicates and reordering to any OWAMP server (owampd on a perfSONAR
 * host, nmprobe-owampd), asked for with protocol=OWAMP: the engine runs the control session,
 * sends the test packets and fetches the receiver's records back (RFC 4656). Figures carry the
 * UDP stream's names where they mean the same, so archives, the dashboard and perfSONAR's
 * latency form read both alike; the uncertainty is the sum of both ends' error estimates.
 */
final class OwampKind extends ControlSessionKind {
    private static final FigureTable<OwampResult> FIGURES = new FigureTable<>(OwampResult.class)
            // the delays first: readers show a kind's headline figures in this order
            .of(Unit.MILLISECONDS, "minDelayMs=minOwdMs", "medianDelayMs=medianOwdMs", "meanDelayMs=meanOwdMs",
                    "p95DelayMs=p95OwdMs", "p99DelayMs=p99OwdMs", "maxDelayMs=maxOwdMs", "oneWayUncertaintyMs",
                    "senderClockErrorMs=senderErrorMs", "receiverClockErrorMs=remoteErrorMs")
            .of(Unit.NONE, "sent", "received", "lost")
            .of(Unit.PERCENT, "lossPercent")
            .of(Unit.NONE, "duplicates", "outOfOrder=reordered")
            .onlyIf(r -> r.skipped() > 0, Unit.NONE, "skipped")
            .of(Unit.NONE, "receiverSynchronised=remoteSynchronised")
            .headline("medianDelayMs", "owdMs", "one-way")
            .headline("lossPercent", "lossPercent", "loss")
            .chart("medianDelayMs", "owdMs", "OWAMP")
            .chart("lossPercent", "lossPercent", "OWAMP");

    OwampKind(Path keyFile) {
        super(false, FIGURES, keyFile);
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.OWAMP;
    }

    @Override
    public Observation run(ControlSessionParameters p, PathSubject subject, TestRunner runner)
            throws MeasurementException {
        String dst = subject.dst().host();
        OwampResult r = session(p, subject, runner);
        Map<String, Double> s = FIGURES.summary(r);
        List<Observation.Frame> frames = frames(p, r);
        if (p.fromServer()) {
            // the server sent: the path measured runs from it to this host, and each end's error is its own
            Environment env = new Environment(Environment.Host.remote(dst, r.remoteAddress()),
                    runner.host().describe("dst", r.localAddress()));
            PathSubject path = new PathSubject(new Endpoint(dst, subject.dst().type()),
                    new Endpoint(r.localAddress(), r.localAddress().contains(":") ? "ipv6" : "ipv4"));
            return new Observation(0, runner.measurementPoint(), ProbeTest.OWAMP, path, r.remoteAddress(),
                    r.localAddress(), MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env,
                    MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s,
                    frames);
        }
        Environment env = new Environment(runner.host().describe("src", r.localAddress()),
                Environment.Host.remote(dst, r.remoteAddress()));
        return new Observation(0, runner.measurementPoint(), ProbeTest.OWAMP, subject, r.localAddress(),
                r.remoteAddress(), MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env,
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames);
    }
}
