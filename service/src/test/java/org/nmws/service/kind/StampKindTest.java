package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.StampResult;
import org.nmws.probe.StampSpec;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** STAMP tests through the fake engine: the session asked of the reflector, and the round trips and one-way figures kept. */
class StampKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;
    private static final long MS = 1_000_000L;

    private final StampKind kind = new StampKind(() -> false);

    /**
     * Four packets: the second lost on the way out (the reflector counted it), three reflected;
     * the backward delays unknown (NaN) as from a reflector that stamps no transmit time.
     */
    static StampResult answer(StampSpec s) {
        return new StampResult(4, 4, 3, 1, 0, 0, 25.0, 0.9, 1.0, 1.0333, 1.2, 1.2, 0.4, 0.5, 0.6, Double.NaN,
                Double.NaN, Double.NaN, 0.1, 0.5, 0.6, true, false, 1, 0, T0, T0 + 100 * MS, "192.0.2.1", "192.0.2.7",
                new StampResult.Frames(new long[] {T0, T0 + 20 * MS, T0 + 40 * MS, T0 + 60 * MS},
                        new long[] {1_000_000, -1, 1_200_000, 900_000}, new long[] {400_000, -1, 600_000, 500_000},
                        new long[] {-1, -1, -1, -1}, new int[] {64, -1, 64, 64}, new int[] {62, -1, 62, 61}),
                false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg) throws Exception {
        Map<String, String> p = new java.util.HashMap<>(nmwg);
        p.putIfAbsent("protocol", "STAMP");
        assertEquals(Characteristic.ProbeTest.STAMP, Characteristic.PATH_DELAY_ONEWAY.testFor(p));
        return kind.run(kind.parse(p, Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT), PATH, engine.runner());
    }

    @Test
    void theParametersBecomeTheReflectorSession() throws Exception {
        FakeEngine engine = new FakeEngine().answer(StampSpec.class, StampKindTest::answer);
        measure(engine, Map.of("count", "5", "packetSize", "100", "interval", "0.02", "timeout", "0.5", "port", "4862",
                "ssid", "7", "timestamp", "PTP", "ttl", "64"));
        measure(engine, Map.of("protocol", "TWAMP-Light"));
        assertEquals(new StampSpec("192.0.2.7", 4862, 5, 100, 20_000_000L, 500_000_000L, 7, true, 64, 1_000_000_000L),
                engine.specs.get(0));
        // the standard port, 10 unpadded packets 100 ms apart, SSID 1, NTP timestamps
        assertEquals(new StampSpec("192.0.2.7", 862, 10, 44, 100_000_000L, 1_000_000_000L, 1, false, 0, 1_000_000_000L),
                engine.specs.get(1));
    }

    @Test
    void theAnswerIsKeptAsRoundTripAndOneWayFiguresWithTheirUncertainty() throws Exception {
        FakeEngine engine = new FakeEngine().answer(StampSpec.class, StampKindTest::answer);
        Observation o = measure(engine, Map.of("count", "4", "timestamp", "NTP"));
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.STAMP, o.test());
        assertEquals(25.0, f.get("lossPercent"));
        assertEquals(4.0, f.get("sent"));
        assertEquals(3.0, f.get("received"));
        assertEquals(1.0, f.get("forwardLost"), "lost on the way out, as the reflector counted");
        assertEquals(1.0, f.get("medianRtt"));
        assertEquals(0.9, f.get("minRtt"));
        assertEquals(0.5, f.get("medianForwardMs"));
        assertEquals(0.6, f.get("oneWayUncertaintyMs"));
        assertEquals(1.0, f.get("reflectorSynchronised"));
        assertFalse(f.containsKey("minBackwardMs"), "no backward delay from this reflector: none is made up");
        assertFalse(f.containsKey("medianBackwardMs"));
        assertEquals(Instant.ofEpochSecond(1_700_000_000L), o.start());
        assertEquals(Instant.ofEpochSecond(1_700_000_000L, 100_000_000), o.end());
        assertEquals(Map.of("count", "4", "packetSize", "44", "interval", "0.1", "timeout", "1", "port", "862", "ssid",
                "1", "timestamp", "NTP", "ttl", "0", "protocol", "STAMP"), o.parameters());
        assertEquals("192.0.2.1", o.srcAddress());
        assertEquals("192.0.2.7", o.environment().dst().address());
        assertEquals("192.0.2.7", o.environment().dst().name());
    }

    @Test
    void eachPacketIsAFrameWithItsRoundTripAndReplyTtl() throws Exception {
        FakeEngine engine = new FakeEngine().answer(StampSpec.class, StampKindTest::answer);
        Observation o = measure(engine, Map.of("packetSize", "100", "raw", "true"));
        FakeEngine.assertDeclared(kind, o);
        assertTrue(kind.raw(kind.parse(Map.of("raw", "true"), Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT)));
        assertEquals(List.of(new Observation.Frame(0, T0, 1_000_000, 100, 62),
                new Observation.Frame(1, T0 + 20 * MS, Observation.Frame.LOST, 100, -1),
                new Observation.Frame(2, T0 + 40 * MS, 1_200_000, 100, 62),
                new Observation.Frame(3, T0 + 60 * MS, 900_000, 100, 61)), o.frames());
    }

    @Test
    void figuresHaveTheirUnits() {
        assertEquals(Unit.MILLISECONDS, kind.unit("p99Rtt"));
        assertEquals(Unit.MILLISECONDS, kind.unit("medianBackwardMs"));
        assertEquals(Unit.MILLISECONDS, kind.unit("oneWayUncertaintyMs"));
        assertEquals(Unit.PERCENT, kind.unit("lossPercent"));
        assertEquals(Unit.NONE, kind.unit("forwardLost"));
    }

    @Test
    void authenticatedModeNamesAKeyIdAndPadsTo112Bytes() throws Exception {
        StampKind keyed = new StampKind(() -> true);
        FakeEngine engine = new FakeEngine().answer(StampSpec.class, StampKindTest::answer);
        Map<String, String> p = Map.of("protocol", "STAMP", "authMode", "authenticated", "keyId", "lab");
        Observation o = keyed.run(keyed.parse(p, Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT), PATH,
                engine.runner());
        FakeEngine.assertDeclared(keyed, o);
        assertEquals(new StampSpec("192.0.2.7", 862, 10, 112, 100_000_000L, 1_000_000_000L, 1, false, 0, 1_000_000_000L,
                "lab"), engine.only(StampSpec.class));
        assertEquals("authenticated", o.parameters().get("authMode"));
        assertEquals("lab", o.parameters().get("keyId"));
        assertEquals(0.0, o.summary().get("authFailed"));
    }

    @Test
    void authenticatedModeIsRefusedWithItsReasonBeforeTheEngine() {
        StampKind keyed = new StampKind(() -> true);
        Map<Map<String, String>, String> cases = Map.of(
                Map.of("keyId", "lab"), "parameter keyId is given without authMode=authenticated",
                Map.of("authMode", "encrypted", "keyId", "lab"),
                "parameter authMode is 'encrypted': expected open or authenticated (STAMP has no encrypted mode)",
                Map.of("authMode", "authenticated"), "parameter keyId is missing: authMode=authenticated names a key of"
                        + " this service's key file by its id (1..80 printable characters without spaces)",
                Map.of("authMode", "authenticated", "keyId", "a b"), "parameter keyId is 'a b': authMode=authenticated"
                        + " names a key of this service's key file by its id (1..80 printable characters without spaces)",
                Map.of("authMode", "authenticated", "keyId", "lab", "packetSize", "100"),
                "parameter packetSize is 100: must be 112..9000");
        cases.forEach((nmwg, message) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> keyed.parse(nmwg, Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT));
            assertEquals(message, e.getMessage());
        });
        StampKind noKeys = new StampKind(() -> false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> noKeys.parse(
                Map.of("authMode", "authenticated", "keyId", "lab"), Characteristic.PATH_DELAY_ROUNDTRIP,
                RoundTripKindTest.CONTEXT));
        assertEquals("authMode=authenticated: this service has no STAMP key file (nmws.key-file)", e.getMessage());
    }

    @Test
    void stampIsBackgroundAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.BACKGROUND, kind.testClass(Characteristic.PATH_DELAY_ROUNDTRIP));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("timestamp", "GPS")));
        assertEquals("parameter 'timestamp' is 'GPS': expected NTP or PTP", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("packetSize", "43")));
        assertEquals("parameter packetSize is 43: must be 44..9000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("count", "1000", "interval", "1")));
        assertTrue(e.getMessage().endsWith("exceeds this service's limit of 120 s"), e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
