package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.CapacityResult;
import org.nmws.probe.CapacitySpec;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Capacity by packet trains through the fake engine: the trains asked for, and the estimate, spread and accounting kept. */
class CapacityKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;

    private final CapacityKind kind = new CapacityKind();

    /** 20 trains sent, 16 kept: 2 lost frames, 1 reordered, 1 sent too slowly; a burst at the heads. */
    static CapacityResult answer(CapacitySpec s, double userMbps) {
        CapacityResult.TrainStatus[] status = new CapacityResult.TrainStatus[s.trains()];
        java.util.Arrays.fill(status, CapacityResult.TrainStatus.USED);
        return new CapacityResult(new CapacityResult.Estimate(userMbps, userMbps * 1.028, userMbps * 1.045),
                new CapacityResult.Spread(90.0, 93.0, 96.0, 98.0, 3.0), 940.0,
                new CapacityResult.Trains(s.trains(), 20, 16, 2, 1, 1, s.trainLength(), s.packetSize(), 25, 1_000_000L, 0.5,
                        1000, 990, 42, 66),
                new double[s.trains()], status, new int[s.trains()], T0, T0 + 2_000_000_000L, "192.0.2.1", "192.0.2.7",
                s.port(), false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg) throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_BANDWIDTH_CAPACITY, RoundTripKindTest.CONTEXT), PATH,
                engine.runner());
    }

    @Test
    void theParametersBecomeTheEnginesSpec() throws Exception {
        FakeEngine engine = new FakeEngine().answer(CapacitySpec.class, s -> answer(s, 95.0));
        measure(engine, Map.of("trains", "20", "trainLength", "50", "packetSize", "1000", "port", "9400"));
        // the engine chooses the skip and the gap; it waits 500 ms for the last frame
        assertEquals(new CapacitySpec("192.0.2.7", 9400, 20, 50, 1000, 0, 0, 500_000_000L, 0),
                engine.only(CapacitySpec.class));
        measure(engine, Map.of());
        CapacitySpec defaults = (CapacitySpec) engine.specs.get(1);
        assertEquals(40, defaults.trains());
        assertEquals(100, defaults.trainLength());
        assertEquals(1472, defaults.packetSize());
        assertEquals(8700, defaults.port());
    }

    @Test
    void theAnswerIsKeptAsTheEstimateAtThreeLevelsItsSpreadAndTheTrainsItRestsOn() throws Exception {
        FakeEngine engine = new FakeEngine().answer(CapacitySpec.class, s -> answer(s, 95.0));
        Observation o = measure(engine, Map.of("trains", "20", "trainLength", "50"));
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.CAPACITY, o.test());
        assertEquals(95.0, f.get("capacityMbps"));
        assertEquals(95.0 * 1.028, f.get("capacityFrameMbps"));
        assertEquals(95.0 * 1.045, f.get("capacityWireMbps"));
        assertEquals(90.0, f.get("p10Mbps"));
        assertEquals(98.0, f.get("p90Mbps"));
        assertEquals(3.0, f.get("iqrMbps"));
        assertEquals(940.0, f.get("trainHeadMbps"));
        assertEquals(20.0, f.get("trainsSent"));
        assertEquals(16.0, f.get("trainsUsed"));
        assertEquals(2.0, f.get("trainsDiscardedLoss"));
        assertEquals(1.0, f.get("trainsDiscardedReordered"));
        assertEquals(1.0, f.get("trainsDiscardedSenderLimited"));
        assertEquals(Map.of("trains", "20", "trainLength", "50", "packetSize", "1472", "port", "8700", "protocol", "UDP"),
                o.parameters());
        assertEquals("192.0.2.1", o.srcAddress());
        assertEquals("192.0.2.7", o.environment().dst().address());
        assertEquals(Instant.ofEpochSecond(1_700_000_000L), o.start());
        assertEquals(Instant.ofEpochSecond(1_700_000_002L), o.end());
        assertEquals(List.of(), o.frames());
    }

    @Test
    void withNoTrainKeptThereIsNoEstimateButTheAccountingStays() throws Exception {
        FakeEngine engine = new FakeEngine().answer(CapacitySpec.class, s -> answer(s, Double.NaN));
        Map<String, Double> f = measure(engine, Map.of()).summary();
        assertFalse(f.containsKey("capacityMbps"));
        assertFalse(f.containsKey("capacityWireMbps"));
        assertEquals(16.0, f.get("trainsUsed"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("capacityWireMbps"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("iqrMbps"));
        assertEquals(Unit.NONE, kind.unit("trainsUsed"));
    }

    @Test
    void trainsFillThePathAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_CAPACITY));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("trains", "1000", "trainLength", "200")));
        assertEquals("trains 1000 x trainLength 200 = 200000 frames exceeds this service's limit of 100000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("packetSize", "100")));
        assertEquals("parameter packetSize is 100: must be 200..9000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("trainLength", "4")));
        assertEquals("parameter trainLength is 4: must be 8..10000", e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
