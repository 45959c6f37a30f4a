package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.nmws.probe.HopListResult;
import org.nmws.probe.HopListSpec;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Hop lists through the fake engine: the probes asked for, and the route, per-hop figures and probes kept. */
class HopListKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final double NAN = Double.NaN;

    private final HopListKind kind = new HopListKind();

    private static HopListResult.Hop hop(int ttl, String address, String name, double... rtts) {
        int answered = 0;
        for (double r : rtts) {
            answered += Double.isNaN(r) ? 0 : 1;
        }
        return new HopListResult.Hop(ttl, Optional.ofNullable(address), Optional.ofNullable(name), rtts, answered, 0,
                address == null ? -1 : 11, address == null ? -1 : 0, "192.0.2.7".equals(address), false);
    }

    /** A gateway answering both probes (the first faster), a silent router, and the destination answering the second probe. */
    static HopListResult answer(HopListSpec s) {
        return new HopListResult(List.of(hop(1, "10.0.0.1", "gw.example.net", 1.2, 1.5), hop(2, null, null, NAN, NAN),
                hop(3, "192.0.2.7", null, NAN, 9.0)), true, 3, "192.0.2.7", 1500.0, false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg, boolean responderAgrees) throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_HOPLIST, RoundTripKindTest.CONTEXT), PATH,
                engine.runner(responderAgrees));
    }

    @Test
    void theParametersBecomeTheEnginesSpec() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopListSpec.class, HopListKindTest::answer);
        measure(engine, Map.of("maxTtl", "12", "probesPerHop", "2", "waitTime", "0.5", "packetSize", "60",
                "resolve", "true"), false);
        assertEquals(new HopListSpec("192.0.2.7", 12, 2, 500_000_000L, 33434, 60, 16, true, 500_000_000L),
                engine.only(HopListSpec.class));
    }

    @Test
    void theRouteIsKeptInTheEnvironmentAndEachProbeAsAFrame() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopListSpec.class, HopListKindTest::answer);
        Observation o = measure(engine, Map.of("probesPerHop", "2", "packetSize", "60"), true);
        FakeEngine.assertDeclared(kind, o);
        assertEquals(Characteristic.ProbeTest.HOP_LIST, o.test());
        assertEquals(List.of(new Environment.RouteHop(1, "10.0.0.1", "gw.example.net"),
                new Environment.RouteHop(2, null, null), new Environment.RouteHop(3, "192.0.2.7", null)),
                o.environment().route());
        assertEquals("192.0.2.7", o.dstAddress());
        List<Observation.Frame> frames = o.frames();
        assertEquals(6, frames.size());
        long start = o.start().getEpochSecond() * 1_000_000_000L + o.start().getNano();
        assertEquals(new Observation.Frame(0, start, 1_200_000, 60, 1), frames.get(0));
        assertEquals(new Observation.Frame(1, start, 1_500_000, 60, 1), frames.get(1));
        assertTrue(frames.get(2).lost() && frames.get(3).lost() && frames.get(4).lost());
        assertEquals(2, frames.get(3).ttl());
        assertEquals(new Observation.Frame(5, start, 9_000_000, 60, 3), frames.get(5));
        assertTrue(kind.raw(kind.parse(Map.of(), Characteristic.PATH_HOPLIST, RoundTripKindTest.CONTEXT)),
                "the hops are the answer");
    }

    @Test
    void eachHopKeepsItsFastestAnswer() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopListSpec.class, HopListKindTest::answer);
        Map<String, Double> f = measure(engine, Map.of("probesPerHop", "2"), true).summary();
        assertEquals(3.0, f.get("hopCount"));
        assertEquals(1.0, f.get("reached"));
        assertEquals(1500.0, f.get("elapsedMs"));
        assertEquals(1.2, f.get("hop1MinRttMs"));
        assertEquals(2.0, f.get("hop1Answered"));
        assertEquals(0.0, f.get("hop2Answered"));
        assertFalse(f.containsKey("hop2MinRttMs"), "a silent hop has no RTT");
        assertEquals(9.0, f.get("hop3MinRttMs"));
        assertEquals(Unit.MILLISECONDS, kind.unit("hop3MinRttMs"));
        assertEquals(Unit.MILLISECONDS, kind.unit("elapsedMs"));
        assertEquals(Unit.NONE, kind.unit("hop3Answered"));
    }

    @Test
    void towardsAHostWithoutAResponderMoreThanTracerouteSendsIsRefusedBeforeTheEngine() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopListSpec.class, HopListKindTest::answer);
        MeasurementException e = assertThrows(MeasurementException.class,
                () -> measure(engine, Map.of("probesPerHop", "4"), false));
        assertEquals(MeasurementException.Kind.PARAMETER, e.kind());
        e = assertThrows(MeasurementException.class, () -> measure(engine, Map.of("packetSize", "513"), false));
        assertEquals(MeasurementException.Kind.PARAMETER, e.kind());
        assertTrue(engine.specs.isEmpty());
        measure(engine, Map.of("probesPerHop", "3", "packetSize", "512"), false);
        measure(engine, Map.of("probesPerHop", "4"), true);
        assertEquals(2, engine.specs.size(), "traceroute's own load, or a host that agreed");
    }

    @Test
    void aHopListIsBackgroundAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.BACKGROUND, kind.testClass(Characteristic.PATH_HOPLIST));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("maxTtl", "65"), true));
        assertEquals("parameter maxTtl is 65: must be 1..64", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("maxTtl", "64", "probesPerHop", "10", "waitTime", "10"), true));
        assertTrue(e.getMessage().endsWith("exceeds this service's limit of 120 s"), e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }

    /** Consent is asked at the service's responder port only: a client's port could name an echo service (review finding). */
    @Test
    void aPortOtherThanTheServicesResponderPortIsRefused() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> kind.parse(Map.of("port", "7"), Characteristic.PATH_HOPLIST, RoundTripKindTest.CONTEXT));
        assertTrue(e.getMessage().contains("port 8700 only"), e.getMessage());
        assertEquals(8700, kind.parse(Map.of("port", "8700"), Characteristic.PATH_HOPLIST, RoundTripKindTest.CONTEXT)
                .responderPort());
    }
}
