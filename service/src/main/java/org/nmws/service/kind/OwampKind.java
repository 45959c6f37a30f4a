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
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MILLISECONDS, "minDelayMs", "medianDelayMs", "meanDelayMs", "p95DelayMs", "p99DelayMs",
                    "maxDelayMs", "oneWayUncertaintyMs", "senderClockErrorMs", "receiverClockErrorMs")
            .of(Unit.PERCENT, "lossPercent")
            .headline("medianDelayMs", "owdMs", "one-way")
            .headline("lossPercent", "lossPercent", "loss");
    OwampKind(Path keyFile) {
        super(false, UNITS, keyFile);
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
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("sent", (double) r.sent());
        s.put("received", (double) r.received());
        s.put("lost", (double) r.lost());
        s.put("lossPercent", r.lossPercent());
        s.put("duplicates", (double) r.duplicates());
        s.put("outOfOrder", (double) r.reordered());
        if (r.skipped() > 0) {
            s.put("skipped", (double) r.skipped());
        }
        s.put("minDelayMs", r.minOwdMs());
        s.put("medianDelayMs", r.medianOwdMs());
        s.put("meanDelayMs", r.meanOwdMs());
        s.put("p95DelayMs", r.p95OwdMs());
        s.put("p99DelayMs", r.p99OwdMs());
        s.put("maxDelayMs", r.maxOwdMs());
        s.put("oneWayUncertaintyMs", r.oneWayUncertaintyMs());
        s.put("senderClockErrorMs", r.senderErrorMs());
        s.put("receiverClockErrorMs", r.remoteErrorMs());
        s.put("receiverSynchronised", r.remoteSynchronised() ? 1.0 : 0.0);
        s.values().removeIf(v -> v == null || v.isNaN());
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
