package org.nmws.service.kind;

import org.nmws.service.measure.TestClass;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.nmws.probe.HopListResult;
import org.nmws.probe.HopListSpec;
import org.nmws.probe.Probe;
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

/** The hop list by TTL-limited UDP probes, answered as traceroute datums (one per probe). */
final class HopListKind implements MeasurementKind<HopParameters>, DataForm {
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MILLISECONDS, "elapsedMs")
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
        return HopParameters.parse(nmwg, c.limits().maxDuration());
    }

    @Override
    public boolean raw(HopParameters p) {
        return true; // the hops are the answer
    }

    @Override
    public Observation run(HopParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        if ((p.probesPerHop() > 3 || p.packetSize() > 512) && !runner.responderAgrees(subject)) {
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, dst + " runs no nmws responder, so it has not "
                    + "agreed to be measured: a hop list towards it is limited to traceroute's 3 probes a hop of at most 512 bytes");
        }
        Instant start = Instant.now();
        HopListResult r = runner.probe(subject, control -> {
            HopListResult result = Probe.hopList(new HopListSpec(dst, p.maxTtl(), p.probesPerHop(),
                    Math.round(p.waitSeconds() * 1e9), 33434, p.packetSize(), 16, p.resolve(), 500_000_000L), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return HopObservations.of(subject, p, r, runner.measurementPoint(), runner.host(), start, Instant.now());
    }

    @Override
    public Unit unit(String figure) {
        return UNITS.unit(figure);
    }

    /**
     * One traceroute datum per probe, the hop from the route in the environment; read from
     * stored summaries (no raw), one per hop of the route with its least RTT, as perfSONAR's
     * traceroute clients read hops by default (issue 20).
     */
    @Override
    public void write(NmwgData out, Observation o, boolean raw) {
        Map<Integer, Environment.RouteHop> route = new HashMap<>();
        if (o.environment().route() != null) {
            for (Environment.RouteHop h : o.environment().route()) {
                route.put(h.ttl(), h);
                if (o.frames().isEmpty()) {
                    org.nmws.schema.traceroute.Datum d = new org.nmws.schema.traceroute.Datum();
                    d.setTtl(h.ttl());
                    d.setQueryNum(1);
                    d.setHop(h.address());
                    d.setHopName(h.name());
                    Double min = o.summary().get("hop" + h.ttl() + "MinRttMs");
                    if (min != null) {
                        d.setValue(min);
                        d.setValueUnits("ms");
                    }
                    d.setTimeType("unix");
                    d.setTimeValue(NmwgData.unixTime(o.start()));
                    out.add(d);
                }
            }
        }
        Map<Integer, Integer> queries = new HashMap<>();
        for (Observation.Frame f : o.frames()) {
            org.nmws.schema.traceroute.Datum d = new org.nmws.schema.traceroute.Datum();
            d.setTtl(f.ttl());
            d.setQueryNum(queries.merge(f.ttl(), 1, Integer::sum));
            Environment.RouteHop hop = route.get(f.ttl());
            if (hop != null && hop.address() != null && !f.lost()) {
                d.setHop(hop.address());
                d.setHopName(hop.name());
            }
            if (!f.lost()) {
                d.setValue(f.valueNanos() / 1e6);
                d.setValueUnits("ms");
            }
            d.setNumBytes(Math.toIntExact(f.bytes())); // probe frames: at most 64 KiB
            d.setTimeType("unix");
            d.setTimeValue(NmwgData.unixTime(f.sendEpochNanos()));
            out.add(d);
        }
        out.figures(o, this::unit);
    }
}
