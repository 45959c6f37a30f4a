package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.UdpStreamResult;
import org.nmws.probe.UdpStreamSpec;
import org.nmws.service.NmwsProperties;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/** One-way UDP streams through the fake engine: the spec asked for, and the figures, frames and hosts kept of the answer. */
class UdpStreamKindTest {
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;
    private static final long MS = 1_000_000L;

    private final UdpStreamKind kind = new UdpStreamKind();

    /**
     * Four frames 1 ms apart: frame 2 lost, frame 3 arrived with a delay of exactly -1 ns
     * (offset clocks), one reordered, the loss starting at frame 2, no fit of the loss gaps.
     */
    static UdpStreamResult answer(UdpStreamSpec s, long firstLossSeq, String receiverClock) {
        return new UdpStreamResult(4, 4, 3, 1, 0, 25.0,
                new UdpStreamResult.Sender(T0, T0 + 3 * MS, 1_000_000.0, 5.0, 5.4),
                new UdpStreamResult.Receiver(T0 + 500_000, T0 + 3_600_000, 3.9, 4.2, 66),
                new UdpStreamResult.Reordering(1, 1 / 3.0, 1, new double[] {0.25, 0.0, 0.0}),
                new UdpStreamResult.OneWayDelay(0.4, 0.5, 0.55, 0.7, 0.75, 0.8, 0.2, 0.05, 1),
                new UdpStreamResult.Histogram(900_000.0, 100_000.0, new long[] {1, 0, 1}, 0, 1, 950_000.0,
                        1_050_000.0, 1_200_000.0),
                new UdpStreamResult.LossPattern(0, Double.NaN, Double.NaN, Double.NaN),
                new UdpStreamResult.LossOnset(firstLossSeq, 4.8, 3.2, 1.5, 2271.0, 0.3, 1200.0),
                new UdpStreamResult.Hosts(12.5, 30.0, 1000, 2000, 3, 1, 0, 0, 0),
                new UdpStreamResult.Clocks("utc", 0.5, receiverClock, 0.25, 0.75),
                T0, T0 + 4 * MS, "192.0.2.1", "192.0.2.7", s.port(), new int[] {0, 1, 2, 3},
                new long[] {T0, T0 + MS, T0 + 2 * MS, T0 + 3 * MS},
                new long[] {T0 + 500_000, T0 + 1_600_000, 0, T0 + 3_600_000},
                new long[] {500_000, 600_000, 0, -1}, new int[] {1000, 1000, 1000, 1000}, false);
    }

    private Observation measure(FakeEngine engine, Map<String, String> nmwg) throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_DELAY_ONEWAY, RoundTripKindTest.CONTEXT), PATH,
                engine.runner());
    }

    @Test
    void theParametersBecomeTheEnginesSpecWithTheRateSettingTheInterval() throws Exception {
        FakeEngine engine = new FakeEngine().answer(UdpStreamSpec.class, s -> answer(s, 2, "ptp:gm-1"));
        measure(engine, Map.of("count", "100", "packetSize", "1000", "bandwidthLimit", "8M", "timeout", "0.25",
                "ttl", "32", "port", "9100"));
        // 1000-byte frames at 8 Mbit/s are 1 ms apart
        assertEquals(new UdpStreamSpec("192.0.2.7", 9100, 100, 1000, 1_000_000L, 250_000_000L, 32, 50, 0),
                engine.only(UdpStreamSpec.class));
    }

    @Test
    void timeDurationSetsTheCountOfFramesAskedFor() throws Exception {
        FakeEngine engine = new FakeEngine().answer(UdpStreamSpec.class, s -> answer(s, 2, "ptp:gm-1"));
        measure(engine, Map.of("timeDuration", "2", "interval", "0.01"));
        UdpStreamSpec spec = engine.only(UdpStreamSpec.class);
        assertEquals(200, spec.count());
        assertEquals(10_000_000L, spec.intervalNanos());
        assertEquals(1472, spec.packetSize());
        assertEquals(8700, spec.port());
    }

    @Test
    void theAnswerIsKeptAsLossDelayRateAndBufferFigures() throws Exception {
        FakeEngine engine = new FakeEngine().answer(UdpStreamSpec.class, s -> answer(s, 2, "ptp:gm-1"));
        Observation o = measure(engine, Map.of("count", "4", "packetSize", "1000", "interval", "0.001"));
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertEquals(Characteristic.ProbeTest.UDP_STREAM, o.test());
        assertEquals(25.0, f.get("lossPercent"));
        assertEquals(4.0, f.get("sent"));
        assertEquals(3.0, f.get("received"));
        assertEquals(1.0, f.get("lost"));
        assertEquals(1.0, f.get("outOfOrder"));
        assertEquals(0.25, f.get("nReordering1Ratio"));
        assertEquals(0.5, f.get("medianDelayMs"));
        assertEquals(0.2, f.get("jitterMs"));
        assertEquals(0.75, f.get("oneWayUncertaintyMs"));
        // 1000 bytes every ms were asked for (8 Mbit/s); the sender managed 5: it, not the path, set the rate
        assertEquals(8.0, f.get("offeredUserMbps"), 1e-9);
        assertEquals(1.0, f.get("senderLimited"));
        assertEquals(1000.0, f.get("senderSpacingUs"));
        assertEquals(3.1, f.get("receiveDurationMs"), 1e-9);
        assertEquals(900.0, f.get("interArrivalStartUs"));
        assertEquals(1.0, f.get("interArrivalBin2"));
        assertEquals(1.0, f.get("interArrivalOver"));
        assertEquals(2.0, f.get("firstLossSeq"));
        assertEquals(2271.0, f.get("bufferBytes"));
        assertEquals(1.0, f.get("hostLost"));
        assertEquals(0.0, f.get("networkLost"));
        assertFalse(f.containsKey("lossKsDistance"), "a figure the engine could not compute is left out");
        assertFalse(f.containsKey("lossMeanIntervalFrames"));
        assertEquals(Instant.ofEpochSecond(1_700_000_000L), o.start());
        assertEquals(Instant.ofEpochSecond(1_700_000_000L, 4_000_000), o.end());
        assertEquals(Map.of("count", "4", "packetSize", "1000", "interval", "0.001", "bandwidthLimit", "8000000",
                "ttl", "0", "timeout", "0.5", "port", "8700", "protocol", "UDP"), o.parameters());
    }

    @Test
    void eachFrameKeepsItsOneWayDelayAndALostFrameIsLost() throws Exception {
        FakeEngine engine = new FakeEngine().answer(UdpStreamSpec.class, s -> answer(s, 2, "ptp:gm-1"));
        List<Observation.Frame> frames = measure(engine, Map.of("count", "4")).frames();
        assertEquals(List.of(new Observation.Frame(0, T0, 500_000, 1000, -1),
                new Observation.Frame(1, T0 + MS, 600_000, 1000, -1),
                new Observation.Frame(2, T0 + 2 * MS, Observation.Frame.LOST, 1000, -1),
                new Observation.Frame(3, T0 + 3 * MS, -2, 1000, -1)), frames);
        assertTrue(frames.get(2).lost());
        assertFalse(frames.get(3).lost(), "a delay of -1 ns between offset clocks is a delay, not a loss");
    }

    @Test
    void bothHostsLoadAndTheReceiversStatedClockAreInTheEnvironment() throws Exception {
        FakeEngine engine = new FakeEngine().answer(UdpStreamSpec.class, s -> answer(s, 2, "ptp:gm-1"));
        Environment env = measure(engine, Map.of("count", "4")).environment();
        assertEquals("192.0.2.1", env.src().address());
        assertEquals(new Environment.Load(12.5, 1000L, null), env.src().load());
        assertEquals("192.0.2.7", env.dst().address());
        assertEquals(new Environment.Load(30.0, 2000L, 1L), env.dst().load());
        assertEquals(Environment.Clock.stated("ptp:gm-1", 250_000L), env.dst().clock());
    }

    @Test
    void withoutLossOrAStatedClockThoseFiguresAreAbsentNotMadeUp() throws Exception {
        FakeEngine engine = new FakeEngine().answer(UdpStreamSpec.class, s -> answer(s, -1, ""));
        Observation o = measure(engine, Map.of("count", "4", "interval", "0"));
        FakeEngine.assertDeclared(kind, o);
        assertFalse(o.summary().containsKey("firstLossSeq"));
        assertFalse(o.summary().containsKey("rateBeforeLossMbps"));
        assertFalse(o.summary().containsKey("bufferBytes"));
        assertFalse(o.summary().containsKey("offeredUserMbps"), "as fast as possible offers no rate");
        assertFalse(o.summary().containsKey("senderLimited"));
        assertNull(o.environment().dst().clock());
    }

    @Test
    void figuresHaveTheirUnits() {
        assertEquals(Unit.MILLISECONDS, kind.unit("p99DelayMs"));
        assertEquals(Unit.MICROSECONDS, kind.unit("senderSpacingUs"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("receiverUserMbps"));
        assertEquals(Unit.PERCENT, kind.unit("lossPercent"));
        assertEquals(Unit.RATIO, kind.unit("nReordering3Ratio"));
        assertEquals(Unit.BYTES, kind.unit("bufferBytesByDelay"));
        assertEquals(Unit.NONE, kind.unit("interArrivalBin7"));
    }

    @Test
    void delayAndLossRunBesideOthersAndAchievableUdpFillsThePath() {
        assertEquals(TestClass.NORMAL, kind.testClass(Characteristic.PATH_DELAY_ONEWAY));
        assertEquals(TestClass.NORMAL, kind.testClass(Characteristic.PATH_LOSS_ONEWAY));
        assertEquals(TestClass.NORMAL, kind.testClass(Characteristic.PATH_REORDERING_ONEWAY));
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_ACHIEVABLE_UDP));
        // iperf's eventType with protocol=UDP is a UDP stream, and it fills the path too
        assertEquals(Characteristic.ProbeTest.UDP_STREAM,
                Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP.testFor(Map.of("protocol", "UDP")));
        assertEquals(TestClass.EXCLUSIVE, kind.testClass(Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP));
    }

    @Test
    void aBadParameterNeverReachesTheEngine() {
        FakeEngine engine = new FakeEngine();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("protocol", "TCP")));
        assertEquals("parameter protocol is 'TCP': this test is UDP", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> measure(engine, Map.of("interval", "0.001", "bandwidthLimit", "8M")));
        assertEquals("give interval or bandwidthLimit, not both", e.getMessage());
        MeasurementKind.Context limited = new MeasurementKind.Context(8700, new NmwsProperties.Limits(100_000,
                Duration.ofSeconds(120), 64, 4, List.of("127.0.0.0/8"), 60, 100_000, 100));
        e = assertThrows(IllegalArgumentException.class, () -> kind.parse(Map.of("packetSize", "1472",
                "interval", "0.0001"), Characteristic.PATH_BANDWIDTH_ACHIEVABLE_UDP, limited));
        assertEquals("1472-byte frames every 0.0001 s is 117.76 Mbit/s: over this client's limit of 100 Mbit/s",
                e.getMessage());
        assertTrue(engine.specs.isEmpty());
    }
}
