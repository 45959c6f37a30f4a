package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.nmws.probe.HopCapacityResult;
import org.nmws.probe.HopCapacitySpec;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Capacity hop by hop through the fake engine: the trains asked for, the route and each hop's estimate, the bottleneck. */
class HopCapacityKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;

    private final HopCapacityKind kind = new HopCapacityKind();

    private static HopCapacityResult.HopEstimate hop(int ttl, String address, double frameMbps, boolean lowerBound) {
        int used = Double.isNaN(frameMbps) ? 0 : 10;
        return new HopCapacityResult.HopEstimate(ttl, Optional.ofNullable(address), "192.0.2.7".equals(address), 0,
                new HopCapacityResult.Estimate(frameMbps * 0.97, frameMbps, frameMbps * 1.02), frameMbps,
                new HopCapacityResult.Spread(frameMbps * 0.9, frameMbps * 0.95, frameMbps * 1.05, frameMbps * 1.1,
                        frameMbps * 0.1), Double.NaN, lowerBound, false,
                new HopCapacityResult.Trains(10, used, 10 - used, 0, 0),
                new HopCapacityResult.Answers(160, used * 16, used * 16, 0), List.of(), List.of());
    }

    /**
     * A gigabit first hop, a second hop measured only as a lower bound (the sender was slower),
     * a 100 Mbit/s third hop, a fourth that answered no train, and the destination at 400.
     */
    static HopCapacityResult answer(HopCapacitySpec s) {
        return new HopCapacityResult(List.of(hop(1, "10.0.0.1", 1000, false), hop(2, "10.0.1.1", 50, true),
                hop(3, "10.0.2.1", 100, false), hop(4, null, Double.NaN, false), hop(5, "192.0.2.7", 400, false)),
                true, true, 5, "192.0.2.7", s.trains(), s.trainLength(), s.trainLength() / 2, s.packetSize(), 42, 66,
                T0, T0 + 30_000_000_000L, false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg, boolean responderAgrees) throws Exception {
        Map<String, String> p = new java.util.HashMap<>(nmwg);
        p.put("perHop", "true");
        assertEquals(Characteristic.ProbeTest.HOP_CAPACITY, Characteristic.PATH_BANDWIDTH_CAPACITY.testFor(p));
        return kind.run(kind.parse(p, Characteristic.PATH_BANDWIDTH_CAPACITY, RoundTripKindTest.CONTEXT), PATH,
                engine.runner(responderAgrees));
    }

    @Test
    void theParametersBecomeTheEnginesSpec() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopCapacitySpec.class, HopCapacityKindTest::answer);
        measure(engine, Map.of("trains", "10", "trainLength", "16", "maxTtl", "5", "packetSize", "1000"), true);
        // the hop list finds the hops (0), half of each train skipped (-1), the engine's pause, wait and port
        assertEquals(new HopCapacitySpec("192.0.2.7", 0, 5, 10, 16, -1, 1000, 0, 1_000_000_000L, 33434),
                engine.only(HopCapacitySpec.class));
    }

    @Test
    void eachHopIsKeptWithTheRouteAndTheBottleneckIsTheNarrowestMeasuredHop() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopCapacitySpec.class, HopCapacityKindTest::answer);
        Observation o = measure(engine, Map.of("trains", "10", "trainLength", "16", "maxTtl", "5"), true);
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.HOP_CAPACITY, o.test());
        assertEquals(5.0, f.get("hopCount"));
        assertEquals(1.0, f.get("reached"));
        assertEquals(1000.0, f.get("hop1CapacityFrameMbps"));
        assertEquals(970.0, f.get("hop1CapacityMbps"), 1e-9);
        assertEquals(10.0, f.get("hop3IqrMbps"), 1e-9);
        assertEquals(1.0, f.get("hop2LowerBound"));
        assertEquals(0.0, f.get("hop3LowerBound"));
        assertEquals(0.0, f.get("hop4TrainsUsed"));
        assertFalse(f.containsKey("hop4CapacityFrameMbps"), "no train came back: no estimate");
        // hop 2's 50 is a lower bound and says nothing of the narrowest link: hop 3 is the bottleneck
        assertEquals(100.0, f.get("bottleneckFrameMbps"));
        assertEquals(List.of(new Environment.RouteHop(1, "10.0.0.1", null), new Environment.RouteHop(2, "10.0.1.1", null),
                new Environment.RouteHop(3, "10.0.2.1", null), new Environment.RouteHop(4, null, null),
                new Environment.RouteHop(5, "192.0.2.7", null)), o.environment().route());
        assertEquals(Map.of("perHop", "true", "trains", "10", "trainLength", "16", "packetSize", "1472", "maxTtl", "5",
                "protocol", "UDP"), o.parameters());
        assertEquals("192.0.2.7", o.dstAddress());
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("hop3CapacityFrameMbps"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("bottleneckFrameMbps"));
        assertEquals(Unit.NONE, kind.unit("hop3TrainsUsed"));
    }

    @Test
    void towardsAHostWithoutAResponderOnlyAFewTraceroutesWorthIsSent() throws Exception {
        FakeEngine engine = new FakeEngine().answer(HopCapacitySpec.class, HopCapacityKindTest::answer);
        // the defaults, 30 trains of 64 frames to each of 30 hops, are 57600 frames
        MeasurementException e = assertThrows(MeasurementException.class, () -> measure(engine, Map.of(), false));
        assertEquals(MeasurementException.Kind.PARAMETER, e.kind());
        assertTrue(e.getMessage().endsWith("(asked 57600 of 1472)"), e.getMessage());
        e = assertThrows(MeasurementException.class, () -> measure(engine, Map.of("trains", "2", "trainLength", "8",
                "maxTtl", "5", "packetSize", "1501"), false));
        assertEquals(MeasurementException.Kind.PARAMETER, e.kind());
        assertTrue(engine.specs.isEmpty());
        measure(engine, Map.of("trains", "2", "trainLength", "8", "maxTtl", "5"), false);
        measure(engine, Map.of(), true);
        assertEquals(2, engine.specs.size(), "80 frames, or a host that agreed");
    }

    @Test
    void trainsFillThePathAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_CAPACITY));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("trainLength", "1001"), true));
        assertEquals("parameter trainLength is 1001: must be 8..1000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("trains", "100", "trainLength", "100", "maxTtl", "30"), true));
        assertEquals("trains 100 x trainLength 100 x maxTtl 30 frames exceeds this service's limit of 100000",
                e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
