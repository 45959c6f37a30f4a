package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.OwampResult;
import org.nmws.probe.OwampSpec;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/** OWAMP and TWAMP through the fake engine: the session asked of the server, and the figures kept. */
class OwampTwampKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.9", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final Path KEYS = Path.of("/etc/nmws/owamp-server.pfs");
    private static final double NAN = Double.NaN;

    /** Three OWAMP records fetched of four sent: seq 2 lost, delays 10.1, 10.3, 10.2 ms. */
    static OwampResult owamp(OwampSpec s) {
        return new OwampResult(false, s.mode(), 4, 4, 0, 3, 1, 0, 1, 0, 25.0, 10.1, 10.2, 10.2, 10.3, 10.3, 10.3,
                NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0.02, 0.03, 0.05, true, T0, T0 + 2000 * MS,
                "192.0.2.1", "192.0.2.9", 861, new OwampResult.Frames(new int[] {0, 1, 3, 2},
                        new long[] {T0, T0 + 10 * MS, T0 + 30 * MS, T0 + 20 * MS},
                        new long[] {10_100_000, 10_300_000, 10_200_000, -1}, new long[0], new long[0],
                        new int[] {255, 255, 255, -1}), false);
    }

    static OwampResult twamp(OwampSpec s) {
        return new OwampResult(true, s.mode(), 3, 3, 0, 3, 0, 0, 0, 0, 0.0, NAN, NAN, NAN, NAN, NAN, NAN, 20.0, 20.2,
                20.2, 20.4, 20.4, 10.0, 10.1, 10.2, 10.0, 10.1, 10.2, 0, 0.02, 0.03, 0.05, false, T0, T0 + 500 * MS,
                "192.0.2.1", "192.0.2.9", 862, new OwampResult.Frames(new int[] {0, 1, 2},
                        new long[] {T0, T0 + 100 * MS, T0 + 200 * MS}, new long[] {20_000_000, 20_200_000, 20_400_000},
                        new long[] {10_000_000, 10_100_000, 10_200_000}, new long[] {10_000_000, 10_100_000, 10_200_000},
                        new int[] {250, 250, 250}), false);
    }

    private static Map<String, String> with(String protocol, String... kv) {
        Map<String, String> p = new HashMap<>();
        p.put("protocol", protocol);
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void theProtocolParameterChoosesTheControlSessionKinds() {
        assertEquals(ProbeTest.OWAMP, Characteristic.PATH_DELAY_ONEWAY.testFor(with("OWAMP")));
        assertEquals(ProbeTest.OWAMP, Characteristic.PATH_LOSS_ONEWAY.testFor(with("owamp")));
        assertEquals(ProbeTest.TWAMP, Characteristic.PATH_DELAY_ROUNDTRIP.testFor(with("TWAMP")));
        assertEquals(ProbeTest.TWAMP, Characteristic.PATH_DELAY_ONEWAY.testFor(with("TWAMP")));
        assertEquals(ProbeTest.STAMP, Characteristic.PATH_DELAY_ROUNDTRIP.testFor(with("TWAMP-Light")));
        // OWAMP measures one way only: a round trip asked with it is not OWAMP's
        assertEquals(ProbeTest.ROUND_TRIP, Characteristic.PATH_DELAY_ROUNDTRIP.testFor(with("OWAMP")));
        assertEquals(FarEnd.OWAMP_TWAMP_SERVER, new OwampKind(null).farEnd());
    }

    @Test
    void anOwampSessionKeepsTheStreamsOneWayNamesAndTheFetchedRecords() throws Exception {
        OwampKind kind = new OwampKind(KEYS);
        FakeEngine engine = new FakeEngine().answer(OwampSpec.class, OwampTwampKindTest::owamp);
        Observation o = kind.run(kind.parse(with("OWAMP", "count", "4", "interval", "0.01", "timeout", "1",
                "packetPadding", "100", "mode", "authenticated", "keyId", "alice", "port", "8861"),
                Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT), PATH, engine.runner());
        FakeEngine.assertDeclared(kind, o);
        assertEquals(new OwampSpec(false, "192.0.2.9", 8861, 4, 100, 10 * MS, 1000 * MS, "authenticated", "alice",
                KEYS.toString(), 0), engine.specs.get(0));
        Map<String, Double> f = o.summary();
        assertEquals(ProbeTest.OWAMP, o.test());
        assertEquals(10.2, f.get("medianDelayMs"));
        assertEquals(25.0, f.get("lossPercent"));
        assertEquals(1.0, f.get("outOfOrder"));
        assertEquals(0.05, f.get("oneWayUncertaintyMs"));
        assertEquals(0.03, f.get("receiverClockErrorMs"));
        assertEquals(4, o.frames().size());
        assertTrue(o.frames().get(3).lost());
        assertEquals(148, o.frames().get(0).bytes(), "48 authenticated header octets + 100 padding");
        assertEquals("authenticated", o.parameters().get("mode"));
        assertEquals("alice", o.parameters().get("keyId"));
        assertFalse(o.parameters().containsValue(KEYS.toString()), "the key file stays on the point");
    }

    @Test
    void directionFromAsksTheServerToSendAndKeepsThePathFromIt() throws Exception {
        OwampKind kind = new OwampKind(null);
        FakeEngine engine = new FakeEngine().answer(OwampSpec.class, OwampTwampKindTest::owamp);
        Observation o = kind.run(kind.parse(with("OWAMP", "count", "4", "direction", "from"),
                Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT), PATH, engine.runner());
        FakeEngine.assertDeclared(kind, o);
        assertEquals("from", ((OwampSpec) engine.specs.get(0)).direction());
        assertEquals("192.0.2.9", o.subject().src().host(), "the server sent: the path runs from it");
        assertEquals("192.0.2.1", o.subject().dst().host());
        assertEquals("from", o.parameters().get("direction"));
        assertThrows(IllegalArgumentException.class, () -> kind.parse(with("OWAMP", "direction", "sideways"),
                Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT));
        assertThrows(IllegalArgumentException.class, () -> new TwampKind(null).parse(with("TWAMP", "direction", "from"),
                Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT), "TWAMP measures both ways at once");
    }

    @Test
    void aTwampSessionKeepsTheStampKindsNames() throws Exception {
        TwampKind kind = new TwampKind(null);
        FakeEngine engine = new FakeEngine().answer(OwampSpec.class, OwampTwampKindTest::twamp);
        Observation o = kind.run(kind.parse(with("TWAMP", "count", "3"), Characteristic.PATH_DELAY_ROUNDTRIP,
                RoundTripKindTest.CONTEXT), PATH, engine.runner());
        FakeEngine.assertDeclared(kind, o);
        assertEquals(new OwampSpec(true, "192.0.2.9", 862, 3, 0, 100 * MS, 2000 * MS, "open", null, null, 0),
                engine.specs.get(0));
        Map<String, Double> f = o.summary();
        assertEquals(ProbeTest.TWAMP, o.test());
        assertEquals(20.2, f.get("medianRtt"));
        assertEquals(10.1, f.get("medianForwardMs"));
        assertEquals(0.0, f.get("reflectorSynchronised"));
        assertEquals(20_400_000L, o.frames().get(2).valueNanos());
    }

    @Test
    void authenticatedModesNeedAKeyIdAndAKeyFileOnThePointAndNeverASecret() {
        TwampKind keyless = new TwampKind(null);
        IllegalArgumentException noFile = assertThrows(IllegalArgumentException.class, () -> keyless.parse(
                with("TWAMP", "mode", "encrypted", "keyId", "bob"), Characteristic.PATH_DELAY_ROUNDTRIP,
                RoundTripKindTest.CONTEXT));
        assertTrue(noFile.getMessage().contains("nmws.key-file"), noFile.getMessage());
        TwampKind kind = new TwampKind(KEYS);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> kind.parse(with("TWAMP", "mode", "mixed"),
                Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT)).getMessage().contains("keyId"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new OwampKind(KEYS).parse(
                with("OWAMP", "mode", "mixed", "keyId", "bob"), Characteristic.PATH_DELAY_ONEWAY,
                RoundTripKindTest.CONTEXT)).getMessage().contains("expected open, authenticated or encrypted"));
        assertThrows(IllegalArgumentException.class, () -> kind.parse(with("TWAMP", "key", "00112233"),
                Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT), "a key is never a parameter");
        assertThrows(IllegalArgumentException.class, () -> kind.parse(with("TWAMP", "keyId", "bob"),
                Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT), "a key id in open mode is a mistake");
    }
}
