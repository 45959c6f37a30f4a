package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.TcpStreamResult;
import org.nmws.probe.TcpStreamSpec;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** TCP streams through the fake engine: the spec asked for, and the throughput, limits, series and samples kept. */
class TcpStreamKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;
    private static final long MS = 1_000_000L;

    private final TcpStreamKind kind = new TcpStreamKind();

    /**
     * Two streams over two 500 ms bins; stream 0 held back by the receiver's window a quarter
     * of its time, stream 1 by its send buffer a quarter; three TCP_INFO samples; four CBR
     * messages, the last two scheduled more than a second after the first.
     */
    static TcpStreamResult answer(TcpStreamSpec s) {
        List<TcpStreamResult.PerStream> per = List.of(
                new TcpStreamResult.PerStream(3_000_000, 3_000_000, 46, 46, 40.5, 40.0, T0, T0 + 999 * MS, 3, 1500,
                        1_000_000, 250_000, 0),
                new TcpStreamResult.PerStream(7_000_000, 7_000_000, 107, 107, 40.5, 40.0, T0, T0 + 999 * MS, 4, 2500,
                        1_000_000, 0, 250_000));
        TcpStreamResult.TimeSeries series = new TcpStreamResult.TimeSeries(T0, 500 * MS, 2,
                new long[] {1_000_000, 2_000_000, 3_000_000, 4_000_000});
        TcpStreamResult.TcpInfoSamples info = new TcpStreamResult.TcpInfoSamples(new long[] {0, 100 * MS, 200 * MS},
                new int[] {0, 1, 0}, new int[] {10, 40, 20}, new int[] {1448, 1448, 1448}, new int[] {1000, 2000, 3000},
                new int[] {100, 500, 200}, new int[] {0, 1, 0}, new int[] {0, 1, 1}, new long[] {2_000_000, 6_000_000, 3_000_000},
                new long[] {1_000_000, 5_000_000, 2_000_000}, new long[] {10_000, 20_000, 30_000});
        TcpStreamResult.Lateness lateness = new TcpStreamResult.Lateness(3.0, 8.5, 49.0, 50.0, new int[] {0, 0, 0, 0},
                new int[] {0, 1, 2, 3}, new long[] {T0, T0 + 500 * MS, T0 + 1500 * MS, T0 + 2000 * MS},
                new long[] {T0 + 50 * MS, T0 + 510 * MS, T0 + 1503 * MS, T0 + 2007 * MS},
                new long[] {50 * MS, 10 * MS, 3 * MS, 7 * MS}, 0);
        return new TcpStreamResult(2, s.messageSize(), 10_000_000, 10_000_000, 1.01, 1.0, 79.2, 80.0, 7, per, series,
                info, lateness, 0, T0, T0 + 1100 * MS, "192.0.2.1", "192.0.2.7", s.port(), "bbr", false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg) throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP, RoundTripKindTest.CONTEXT), PATH,
                engine.runner());
    }

    @Test
    void theParametersBecomeTheEnginesSpec() throws Exception {
        FakeEngine engine = new FakeEngine().answer(TcpStreamSpec.class, TcpStreamKindTest::answer);
        measure(engine, Map.of("streams", "2", "timeDuration", "3", "bufferLength", "65536", "windowSize", "4194304",
                "sampleInterval", "0.5", "timeout", "2", "port", "9200", "congestion", "bbr"));
        assertEquals(new TcpStreamSpec("192.0.2.7", 9200, 2, 65536, 0, false, 4194304, 3_000_000_000L, 0,
                500_000_000L, 2_000_000_000L, "bbr"), engine.only(TcpStreamSpec.class));
    }

    @Test
    void multiStreamDefaultsToFourStreamsAndCbrPutsMessagesOnASchedule() throws Exception {
        FakeEngine engine = new FakeEngine().answer(TcpStreamSpec.class, TcpStreamKindTest::answer);
        kind.run(kind.parse(Map.of(), Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP_MULTISTREAM,
                RoundTripKindTest.CONTEXT), PATH, engine.runner());
        measure(engine, Map.of("interval", "0.01", "cbr", "true"));
        TcpStreamSpec multi = (TcpStreamSpec) engine.specs.get(0);
        assertEquals(4, multi.streams());
        assertEquals(5_000_000_000L, multi.durationNanos());
        // the wait for the last acknowledgement: 10 s, as the 120 s limit leaves room for it
        assertEquals(10_000_000_000L, multi.timeoutNanos());
        TcpStreamSpec cbr = (TcpStreamSpec) engine.specs.get(1);
        assertEquals(1, cbr.streams());
        assertTrue(cbr.constantBitRate());
        assertEquals(10_000_000L, cbr.intervalNanos());
    }

    @Test
    void theAnswerIsKeptAsThroughputWhatHeldTheSendersBackAndTcpInfoFigures() throws Exception {
        FakeEngine engine = new FakeEngine().answer(TcpStreamSpec.class, TcpStreamKindTest::answer);
        Observation o = measure(engine, Map.of("streams", "2"));
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.TCP_STREAM, o.test());
        assertEquals(80.0, f.get("throughputMbps"));
        assertEquals(79.2, f.get("sendMbps"));
        assertEquals(7.0, f.get("retransmits"));
        assertEquals(2.0, f.get("streams"));
        // of 2 s with data in flight, 0.25 s held by a receive window and 0.25 s by a send buffer
        assertEquals(12.5, f.get("rwndLimitedPercent"));
        assertEquals(12.5, f.get("sndbufLimitedPercent"));
        assertEquals(75.0, f.get("cwndLimitedPercent"));
        assertEquals(40.0, f.get("stream1ThroughputMbps"));
        assertEquals(7_000_000.0, f.get("stream1BytesReceived"));
        assertEquals(4.0, f.get("stream1Retransmits"));
        assertEquals(2500.0, f.get("stream1FinalSrttUs"));
        assertEquals(3.0, f.get("tcpInfoSamples"));
        assertEquals(40.0, f.get("maxCwndSegments"));
        assertEquals(2000.0, f.get("meanSrttUs"));
        assertEquals(500.0, f.get("maxRttvarUs"));
        assertEquals(40.0, f.get("maxDeliveryRateMbps"), 1e-9);
        assertFalse(f.containsKey("messages"), "no CBR asked, no lateness");
        assertEquals("bbr", o.parameters().get("congestionControl"));
        assertEquals("2", o.parameters().get("streams"));
        assertEquals("192.0.2.7", o.environment().dst().address());
    }

    @Test
    void cbrLatenessIsKeptWithTheWorstAfterTheFirstSecond() throws Exception {
        FakeEngine engine = new FakeEngine().answer(TcpStreamSpec.class, TcpStreamKindTest::answer);
        Map<String, Double> f = measure(engine, Map.of("interval", "0.5", "cbr", "true")).summary();
        assertEquals(4.0, f.get("messages"));
        assertEquals(3.0, f.get("minLatenessMs"));
        assertEquals(50.0, f.get("maxLatenessMs"));
        // slow start made the first message 50 ms late; after the first second the worst is 7 ms
        assertEquals(7.0, f.get("steadyMaxLatenessMs"));
    }

    @Test
    void theTimeSeriesAreFramesAndTheTcpInfoSamplesAreKeptRaw() throws Exception {
        FakeEngine engine = new FakeEngine().answer(TcpStreamSpec.class, TcpStreamKindTest::answer);
        Observation o = measure(engine, Map.of("streams", "2", "raw", "true"));
        FakeEngine.assertDeclared(kind, o);
        assertTrue(kind.raw(kind.parse(Map.of("raw", "true"), Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP,
                RoundTripKindTest.CONTEXT)));
        // seq = stream * bins + bin, ttl = stream, bytes of the bin, value = the bin's length
        assertEquals(List.of(new Observation.Frame(0, T0, 500 * MS, 1_000_000, 0),
                new Observation.Frame(1, T0 + 500 * MS, 500 * MS, 2_000_000, 0),
                new Observation.Frame(2, T0, 500 * MS, 3_000_000, 1),
                new Observation.Frame(3, T0 + 500 * MS, 500 * MS, 4_000_000, 1)), o.frames());
        assertArrayEquals(new long[] {0, 100 * MS, 200 * MS}, o.samples().get("offsetNs"));
        assertArrayEquals(new long[] {0, 1, 0}, o.samples().get("stream"));
        assertArrayEquals(new long[] {10, 40, 20}, o.samples().get("cwndSegments"));
        assertArrayEquals(new long[] {1_000_000, 5_000_000, 2_000_000}, o.samples().get("deliveryRateBytesPerSecond"));
        assertEquals(11, o.samples().size());
    }

    @Test
    void figuresHaveTheirUnits() {
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("throughputMbps"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("stream3ThroughputMbps"));
        assertEquals(Unit.MICROSECONDS, kind.unit("stream0FinalSrttUs"));
        assertEquals(Unit.MILLISECONDS, kind.unit("steadyMaxLatenessMs"));
        assertEquals(Unit.PERCENT, kind.unit("cwndLimitedPercent"));
        assertEquals(Unit.BYTES, kind.unit("bytesSent")); // issue 26: a table shows 3.46 GB, not 3459645440
        assertEquals(Unit.NONE, kind.unit("retransmits"));
    }

    @Test
    void tcpFillsThePathAndABadParameterNeverReachesTheEngine() {
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP));
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP_MULTISTREAM));
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("protocol", "UDP")));
        assertEquals("parameter protocol is 'UDP': this test is TCP", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("cbr", "true")));
        assertEquals("cbr needs an interval: the period between a stream's messages", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("windowSize", "1000")));
        assertEquals("parameter windowSize is 1000: must be 0 (kernel default) or 2048..268435456", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measure(engine, Map.of("congestion", "BBR;reboot")));
        assertTrue(e.getMessage().startsWith("parameter congestion is '"), e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
