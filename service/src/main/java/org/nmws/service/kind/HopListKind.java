package org.nmws.service.kind;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.nmws.probe.HopListResult;
import org.nmws.probe.HopListSpec;
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

/** The hop list by TTL-limited UDP probes, answered as traceroute datums (one per probe). */
final class HopListKind implements MeasurementKind<HopParameters> {
    /** The route's figures; HopObservations builds the summary from them. */
    static final FigureTable<HopListResult> FIGURES = new FigureTable<>(HopListResult.class)
            .of(Unit.NONE, "hopCount", "reached")
            .of(Unit.MILLISECONDS, "elapsedMs")
            .each("hop", HopListResult::hops, HopListResult.Hop.class, HopListResult.Hop::ttl, Unit.NONE, "Answered=answered")
            .family(Unit.MILLISECONDS, "hop\\d+MinRttMs");

    /** A handful of probes per hop, as traceroute sends. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.BACKGROUND;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.HOP_LIST;
    }

    @Override
    public HopParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return consentAtTheServicesPort(HopParameters.parse(nmwg, c.limits().maxDuration()), c);
    }

    @Override
    public boolean raw(HopParameters p) {
        return true; // the hops are the answer
    }

    @Override
    public Observation run(HopParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        if ((p.probesPerHop() > 3 || p.packetSize() > 512) && !runner.responderAgrees(subject, p.responderPort())) {
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, dst + " runs no nmws responder, so it has not "
                    + "agreed to be measured: a hop list towards it is limited to traceroute's 3 probes a hop of at most 512 bytes");
        }
        Instant start = Instant.now();
        HopListResult r = runner.probe(subject, control -> {
            HopListResult result = runner.engine().run(new HopListSpec(dst, p.maxTtl(), p.probesPerHop(),
                    Math.round(p.waitSeconds() * 1e9), 33434, p.packetSize(), 16, p.resolve(), 500_000_000L), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return HopObservations.of(subject, p, r, runner, start, Instant.now());
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
        return FarEnd.ROUTERS;
    }

    /**
     * Consent is asked of the responder at this service's port only: a port of the client's
     * choosing could name any service that echoes a line (port 7) and forge the host's consent.
     */
    private static HopParameters consentAtTheServicesPort(HopParameters p, Context c) {
        if (p.responderPort() != 0 && p.responderPort() != c.responderPort()) {
            throw new IllegalArgumentException("parameter port is " + p.responderPort() + ": a hop list asks the destination's"
                    + " consent of the responder at this service's port " + c.responderPort() + " only");
        }
        return new HopParameters(p.maxTtl(), p.probesPerHop(), p.waitSeconds(), p.packetSize(), p.resolve(), c.responderPort());
    }
}
