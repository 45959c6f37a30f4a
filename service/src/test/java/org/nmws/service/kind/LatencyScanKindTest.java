package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.LatencyScanResult;
import org.nmws.probe.LatencyScanSpec;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** Latency scans through the fake engine: the sizes asked for, and the per-size figures and fitted line kept. */
class LatencyScanKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));

    private final LatencyScanKind kind = new LatencyScanKind();

    private static LatencyScanResult.SizePoint point(int size, int received, double minMs) {
        return new LatencyScanResult.SizePoint(size, 10, received, minMs, minMs + 0.02, minMs + 0.01,
                received == 0 ? Double.NaN : minMs + 0.1, 0, 1000, new long[] {received}, 0, 0);
    }

    /** Three sizes: every 64-byte frame answered, 9 of 512, none of 1472 (its RTTs NaN). */
    static LatencyScanResult answer(LatencyScanSpec s) {
        return new LatencyScanResult(List.of(point(64, 10, 0.1), point(512, 9, 0.13),
                point(1472, 0, Double.NaN)), 0.008, 95.0, 0.99, "192.0.2.7", false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg) throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT), PATH,
                engine.runner());
    }

    @Test
    void theSizesAndParametersBecomeTheEnginesSpec() throws Exception {
        FakeEngine engine = new FakeEngine().answer(LatencyScanSpec.class, LatencyScanKindTest::answer);
        measure(engine, Map.of("packetSizes", "64, 512,1472", "count", "10", "interval", "0.001", "timeout", "0.5",
                "ttl", "9", "port", "9300", "rounds", "2"));
        assertEquals(new LatencyScanSpec("192.0.2.7", 9300, new int[] {64, 512, 1472}, 10, 1_000_000L, 500_000_000L, 9,
                50, 2), engine.only(LatencyScanSpec.class));
    }

    @Test
    void roundsDefaultToFourWhenTheDurationLimitAllows() throws Exception {
        FakeEngine engine = new FakeEngine().answer(LatencyScanSpec.class, LatencyScanKindTest::answer);
        measure(engine, Map.of("packetSizes", "64,1472", "count", "10"));
        LatencyScanSpec spec = engine.only(LatencyScanSpec.class);
        assertEquals(4, spec.rounds());
        assertEquals(1_000_000_000L, spec.timeoutNanos());
        assertEquals(100_000L, spec.intervalNanos());
        // a round trip over a list of sizes is this scan
        assertEquals(Characteristic.ProbeTest.LATENCY_SCAN,
                Characteristic.PATH_DELAY_ROUNDTRIP.testFor(Map.of("packetSizes", "64,1472")));
    }

    @Test
    void theAnswerIsKeptAsPerSizeFiguresAndTheFittedLine() throws Exception {
        FakeEngine engine = new FakeEngine().answer(LatencyScanSpec.class, LatencyScanKindTest::answer);
        Observation o = measure(engine, Map.of("packetSizes", "64,512,1472", "count", "10"));
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.LATENCY_SCAN, o.test());
        assertEquals(0.008, f.get("slopeUsPerByte"));
        assertEquals(95.0, f.get("interceptUs"));
        assertEquals(0.99, f.get("fitR2Ratio"));
        assertEquals(30.0, f.get("sent"));
        assertEquals(19.0, f.get("received"), "summed over the sizes");
        assertEquals(0.13, f.get("size512MinRttMs"));
        assertEquals(0.14, f.get("size512MedianRttMs"), 1e-12);
        assertEquals(9.0, f.get("size512Received"));
        assertEquals(0.0, f.get("size1472Received"));
        assertFalse(f.containsKey("size1472MinRttMs"), "no answer, no RTT");
        assertFalse(f.containsKey("size1472MaxRttMs"));
        assertEquals("192.0.2.7", o.dstAddress());
        assertNull(o.srcAddress());
        assertEquals("192.0.2.7", o.environment().dst().address());
        assertEquals(List.of(), o.frames());
        assertTrue(!o.start().isAfter(o.end()));
        assertEquals("64,512,1472", o.parameters().get("packetSizes"));
        assertEquals("4", o.parameters().get("rounds"));
    }

    @Test
    void figuresHaveTheirUnits() {
        assertEquals(Unit.MICROSECONDS_PER_BYTE, kind.unit("slopeUsPerByte"));
        assertEquals(Unit.MICROSECONDS, kind.unit("interceptUs"));
        assertEquals(Unit.RATIO, kind.unit("fitR2Ratio"));
        assertEquals(Unit.MILLISECONDS, kind.unit("size1472MedianRttMs"));
        assertEquals(Unit.NONE, kind.unit("size1472Received"));
    }

    @Test
    void aScanRunsBesideOthersAndABadSizeListNeverReachesTheEngine() {
        assertEquals(TestClass.NORMAL, kind.testClass(Characteristic.PATH_DELAY_ROUNDTRIP));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("packetSizes", "64")));
        assertEquals("parameter packetSizes has 1 sizes: must be 2..64", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("packetSizes", "64,abc")));
        assertEquals("parameter packetSizes is '64,abc': expected a comma list of sizes such as 64,512,1472",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("packetSizes", "16,64")));
        assertEquals("parameter packetSizes holds 16: each must be 32..9000", e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
