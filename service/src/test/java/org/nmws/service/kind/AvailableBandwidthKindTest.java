package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.AvailableBandwidthResult;
import org.nmws.probe.AvailableBandwidthSpec;
import org.nmws.service.NmwsProperties;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Available bandwidth by a rate scan through the fake engine: the scan asked for, and the bracket and curve kept. */
class AvailableBandwidthKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;
    private static final MeasurementKind.Context LIMITED = new MeasurementKind.Context(8700, new NmwsProperties.Limits(
            100_000, Duration.ofSeconds(120), 64, 4, List.of("127.0.0.0/8"), 60, 100_000, 100));

    private final AvailableBandwidthKind kind = new AvailableBandwidthKind();

    private static AvailableBandwidthResult.Step step(double offered, double received, double loss, double delayMs,
                                                      boolean refinement) {
        return new AvailableBandwidthResult.Step(offered, offered, received, loss, 0.2, 0.25, delayMs, delayMs * 2,
                1000, (int) (1000 - loss * 10), delayMs > 1, received < offered * 0.97, loss > 1, false, refinement);
    }

    /** 20 and 40 Mbit/s pass, 60 loses 5 %, then 50 passes and 55 makes the delay grow: 50..55, 52.5 in the middle. */
    static AvailableBandwidthResult answer(AvailableBandwidthSpec s) {
        return new AvailableBandwidthResult(List.of(step(20, 20, 0, 0.01, false), step(40, 40, 0, 0.02, false),
                step(60, 57, 5, 3.0, false), step(50, 50, 0, 0.05, true), step(55, 55, 0, 2.5, true)),
                52.5, 54.9, 50.0, 55.0, true, s.packetSize(), 66, T0, T0 + 6_000_000_000L, "192.0.2.1", "192.0.2.7",
                s.port(), false);
    }

    /** Every step passed: the path takes at least the highest rate offered, and no upper end is known. */
    static AvailableBandwidthResult unbracketed(AvailableBandwidthSpec s) {
        return new AvailableBandwidthResult(List.of(step(50, 50, 0, 0.01, false), step(100, 100, 0, 0.02, false)),
                Double.NaN, Double.NaN, 100.0, Double.NaN, false, s.packetSize(), 66, T0, T0 + 2_000_000_000L,
                "192.0.2.1", "192.0.2.7", s.port(), false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg, MeasurementKind.Context context)
            throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_BANDWIDTH_AVAILABLE, context), PATH, engine.runner());
    }

    @Test
    void theParametersBecomeTheEnginesScan() throws Exception {
        FakeEngine engine = new FakeEngine().answer(AvailableBandwidthSpec.class, AvailableBandwidthKindTest::answer);
        measure(engine, Map.of("bandwidthLimit", "200M", "packetSize", "1000", "stepDuration", "0.2", "port", "9500"),
                RoundTripKindTest.CONTEXT);
        // steps of a tenth of the limit, 4 refinements, the engine's pause, thresholds and wait
        assertEquals(new AvailableBandwidthSpec("192.0.2.7", 9500, 1000, 0, 200.0, 0, 4, 200_000_000L, 200_000_000L, 0,
                0, 0, 500_000_000L, 0), engine.only(AvailableBandwidthSpec.class));
    }

    @Test
    void withoutABandwidthLimitTheScanGoesToTheClientsLimitElseAGigabit() throws Exception {
        FakeEngine engine = new FakeEngine().answer(AvailableBandwidthSpec.class, AvailableBandwidthKindTest::answer);
        measure(engine, Map.of(), RoundTripKindTest.CONTEXT);
        measure(engine, Map.of(), LIMITED);
        assertEquals(1000.0, ((AvailableBandwidthSpec) engine.specs.get(0)).maxMbps());
        assertEquals(100.0, ((AvailableBandwidthSpec) engine.specs.get(1)).maxMbps());
        assertEquals(500_000_000L, ((AvailableBandwidthSpec) engine.specs.get(0)).stepNanos());
        assertEquals(1472, ((AvailableBandwidthSpec) engine.specs.get(0)).packetSize());
    }

    @Test
    void theAnswerIsKeptAsTheBracketAndEveryStepOfTheCurve() throws Exception {
        FakeEngine engine = new FakeEngine().answer(AvailableBandwidthSpec.class, AvailableBandwidthKindTest::answer);
        Observation o = measure(engine, Map.of("bandwidthLimit", "100M"), RoundTripKindTest.CONTEXT);
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.AVAILABLE, o.test());
        assertEquals(52.5, f.get("availableMbps"));
        assertEquals(54.9, f.get("availableWireMbps"));
        assertEquals(50.0, f.get("lowerMbps"));
        assertEquals(55.0, f.get("upperMbps"));
        assertEquals(1.0, f.get("bracketed"));
        assertEquals(5.0, f.get("steps"));
        assertEquals(60.0, f.get("step2OfferedMbps"));
        assertEquals(57.0, f.get("step2ReceivedMbps"));
        assertEquals(5.0, f.get("step2LossPercent"));
        assertEquals(1.0, f.get("step2Congested"));
        assertEquals(0.0, f.get("step3Congested"));
        assertEquals(2.5, f.get("step4DelayIncreaseMs"));
        assertEquals(1.0, f.get("step4Congested"), "the delay grew");
        assertEquals(Map.of("bandwidthLimit", "100000000", "packetSize", "1472", "stepDuration", "0.5", "port", "8700",
                "protocol", "UDP"), o.parameters());
        assertEquals("192.0.2.1", o.environment().src().address());
        assertEquals("192.0.2.7", o.environment().dst().address());
    }

    @Test
    void anUnbracketedScanKeepsItsLowerEndAndNoEstimate() throws Exception {
        FakeEngine engine = new FakeEngine().answer(AvailableBandwidthSpec.class, AvailableBandwidthKindTest::unbracketed);
        Map<String, Double> f = measure(engine, Map.of("bandwidthLimit", "100M"), RoundTripKindTest.CONTEXT).summary();
        assertFalse(f.containsKey("availableMbps"));
        assertFalse(f.containsKey("upperMbps"));
        assertEquals(100.0, f.get("lowerMbps"));
        assertEquals(0.0, f.get("bracketed"));
        assertEquals(2.0, f.get("steps"));
    }

    @Test
    void aScanOutsideTheEnginesRangeIsRefusedByParseOrKeptWithinIt() throws Exception {
        // 50 kbit/s passes bandwidthLimit's own range (1k..100G) but is below what a scan offers:
        // parse refuses it, naming the parameter, rather than the spec's maxMbps once the path is held
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> kind.parse(
                Map.of("bandwidthLimit", "50k"), Characteristic.PATH_BANDWIDTH_AVAILABLE, RoundTripKindTest.CONTEXT));
        assertEquals("a scan up to 0.05 Mbit/s is below the least it can offer, 0.1 Mbit/s: give bandwidthLimit of at "
                + "least 100k", e.getMessage());
        // a client may be allowed 500 Gbit/s (max-rate-mbps goes to 1000000): without a bandwidthLimit
        // its scan goes up to the engine's highest rate, not past it
        MeasurementKind.Context fast = new MeasurementKind.Context(8700, new NmwsProperties.Limits(100_000,
                Duration.ofSeconds(120), 64, 4, List.of("127.0.0.0/8"), 60, 100_000, 500_000));
        FakeEngine engine = new FakeEngine().answer(AvailableBandwidthSpec.class, AvailableBandwidthKindTest::answer);
        measure(engine, Map.of(), fast);
        assertEquals(100_000.0, engine.only(AvailableBandwidthSpec.class).maxMbps());
    }

    @Test
    void figuresHaveTheirUnits() {
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("availableWireMbps"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("step12ReceivedMbps"));
        assertEquals(Unit.PERCENT, kind.unit("step2LossPercent"));
        assertEquals(Unit.MILLISECONDS, kind.unit("step4DelayIncreaseMs"));
        assertEquals(Unit.NONE, kind.unit("step4Congested"));
    }

    @Test
    void aScanFillsThePathAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_AVAILABLE));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("bandwidthLimit", "200M"), LIMITED));
        assertEquals("a scan up to 200 Mbit/s is over this client's limit of 100 Mbit/s: give bandwidthLimit",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("stepDuration", "7.5"), RoundTripKindTest.CONTEXT));
        assertEquals("stepDuration 7.50 s makes a scan of up to 123 s, over this service's limit of 120 s", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("bandwidthLimit", "fast"), RoundTripKindTest.CONTEXT));
        assertEquals("parameter bandwidthLimit is 'fast': expected bits/s such as 120M", e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
