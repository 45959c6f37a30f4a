package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.RoundTripResult;
import org.nmws.probe.RoundTripSpec;
import org.nmws.service.NmwsProperties;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Round trips through the fake engine: what the kind asks the engine for, and what it keeps of the answer. */
class RoundTripKindTest {
    static final MeasurementKind.Context CONTEXT = new MeasurementKind.Context(8700, new NmwsProperties.Limits(100_000,
            Duration.ofSeconds(120), 64, 4, List.of("127.0.0.0/8"), 60, 100_000, 0));
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;

    private final RoundTripKind kind = new RoundTripKind();

    static RoundTripResult answer(RoundTripSpec s) {
        return new RoundTripResult(0.1, 0.2, 0.15, 0.9, 0.8, 9.9, 10.0, 10.2, 0.05, 25.0, s.count(), 4, 3, 1, 0, 0,
                T0, T0 + 40_000_000L, "192.0.2.1", "192.0.2.7", s.port(), new int[] {0, 1, 2, 3},
                new long[] {T0, T0 + 10_000_000L, T0 + 20_000_000L, T0 + 30_000_000L},
                new long[] {100_000, 200_000, -1, 150_000}, new int[] {64, 64, 64, 64}, new int[] {64, 64, -1, 63}, false,
                1, 4, 1.2, 0.19, new long[] {10_000, 1_200_000, -1, 5_000});
    }

    @Test
    void theParametersBecomeTheEnginesSpec() throws Exception {
        FakeEngine engine = new FakeEngine().answer(RoundTripSpec.class, RoundTripKindTest::answer);
        RoundTripParameters p = kind.parse(Map.of("count", "4", "interval", "0.01", "packetSize", "100", "port", "9000"),
                Characteristic.PATH_DELAY_ROUNDTRIP, CONTEXT);
        kind.run(p, PATH, engine.runner());
        RoundTripSpec spec = engine.only(RoundTripSpec.class);
        assertEquals(new RoundTripSpec("192.0.2.7", 9000, 4, 100, 10_000_000L, 1_000_000_000L, 0), spec);
    }

    @Test
    void theAnswerIsKeptAsNamedFiguresFramesAndEnvironment() throws Exception {
        FakeEngine engine = new FakeEngine().answer(RoundTripSpec.class, RoundTripKindTest::answer);
        Observation o = kind.run(kind.parse(Map.of("count", "4"), Characteristic.PATH_DELAY_ROUNDTRIP, CONTEXT), PATH,
                engine.runner());
        FakeEngine.assertDeclared(kind, o);
        assertEquals(Characteristic.ProbeTest.ROUND_TRIP, o.test());
        assertEquals("mp-test", o.measurementPoint());
        assertEquals(FakeEngine.VERSION, o.toolVersion());
        assertEquals(0.15, o.summary().get("medianRtt"));
        assertEquals(25.0, o.summary().get("lossPercent"));
        assertEquals(3.0, o.summary().get("received"));
        assertEquals(4, o.frames().size());
        assertEquals(true, o.frames().get(2).lost());
        assertEquals("192.0.2.7", o.environment().dst().address());
        assertEquals("4", o.parameters().get("count"));
        assertEquals(Unit.MILLISECONDS, kind.unit("p99Rtt"));
        assertEquals(Unit.PERCENT, kind.unit("lossPercent"));
        assertEquals(Unit.NONE, kind.unit("sent"));
    }

    @Test
    void aHostStallIsAFigureAndItsFramesAreMarked() throws Exception {
        FakeEngine engine = new FakeEngine().answer(RoundTripSpec.class, RoundTripKindTest::answer);
        Observation o = kind.run(kind.parse(Map.of("count", "4"), Characteristic.PATH_DELAY_ROUNDTRIP, CONTEXT), PATH,
                engine.runner());
        FakeEngine.assertDeclared(kind, o);
        assertEquals(1.0, o.summary().get("stalls"));
        assertEquals(1.2, o.summary().get("maxHost"));
        assertEquals(0.19, o.summary().get("p99PathRtt"));
        assertEquals(Unit.MILLISECONDS, kind.unit("maxHost"));
        assertEquals(1_200_000L, o.samples().get("hostNanos")[1]);
    }

    @Test
    void aClosedLoopIsAskedOfTheEngineAndBookedAtItsLongest() throws Exception {
        FakeEngine engine = new FakeEngine().answer(RoundTripSpec.class, RoundTripKindTest::answer);
        RoundTripParameters p = kind.parse(Map.of("count", "4", "interval", "0", "timeout", "0.05", "closedLoop", "true"),
                Characteristic.PATH_DELAY_ROUNDTRIP, CONTEXT);
        kind.run(p, PATH, engine.runner());
        assertEquals(true, engine.only(RoundTripSpec.class).closedLoop());
        assertEquals("true", p.asNmwg().get("closedLoop"));
        // 5000 frames waited 50 ms each is 250 s: over the 120 s limit, though 5000 x 0 + 0.05 is not
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> kind.parse(
                Map.of("count", "5000", "interval", "0", "timeout", "0.05", "closedLoop", "true"),
                Characteristic.PATH_DELAY_ROUNDTRIP, CONTEXT));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("closedLoop"), e.getMessage());
    }

    @Test
    void aRoundTripIsBackgroundAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.BACKGROUND, kind.testClass(Characteristic.PATH_DELAY_ROUNDTRIP));
        FakeEngine engine = new FakeEngine();
        assertThrows(IllegalArgumentException.class, () -> kind.parse(Map.of("count", "0"),
                Characteristic.PATH_DELAY_ROUNDTRIP, CONTEXT));
        assertFalse(!engine.specs.isEmpty());
    }
}
