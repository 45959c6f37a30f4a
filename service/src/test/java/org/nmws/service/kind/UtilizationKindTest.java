package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.service.measure.Engine;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * Utilization of the real loopback interface (always present, its counters real): nothing is
 * asked of the engine, and the figures are those of the counters read. Other tests on this host
 * use lo too, so the traffic sent here is a floor, not an exact count.
 */
class UtilizationKindTest {
    private static final PathSubject LO = new PathSubject(null, new Endpoint("lo", "interface"));
    private static final int DATAGRAMS = 10;
    private static final int PAYLOAD = 1000;

    private final UtilizationKind kind = new UtilizationKind();

    private Observation measure(TestRunner runner, PathSubject subject, Map<String, String> nmwg) throws Exception {
        return kind.run(kind.parse(nmwg, Characteristic.PATH_BANDWIDTH_UTILIZATION, RoundTripKindTest.CONTEXT), subject,
                runner);
    }

    /** The fake engine's runner, sending DATAGRAMS over lo 100 ms into the sampling (after its first reading). */
    private static TestRunner sendingOverLoopback(FakeEngine engine) {
        TestRunner fake = engine.runner();
        return new TestRunner() {
            @Override
            public <T> T probe(PathSubject subject, ProbeCall<T> call) throws MeasurementException {
                return fake.probe(subject, call);
            }

            @Override
            public <T> T passive(String target, PassiveCall<T> call) throws MeasurementException {
                Thread sender = new Thread(() -> {
                    try (DatagramSocket rx = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                         DatagramSocket tx = new DatagramSocket()) {
                        Thread.sleep(100);
                        for (int i = 0; i < DATAGRAMS; i++) {
                            tx.send(new DatagramPacket(new byte[PAYLOAD], PAYLOAD, rx.getLocalSocketAddress()));
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "utilization-test-sender");
                sender.start();
                try {
                    return fake.passive(target, call);
                } finally {
                    try {
                        sender.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public boolean responderAgrees(PathSubject subject, int port) {
                return fake.responderAgrees(subject, port);
            }

            @Override
            public Engine engine() {
                return fake.engine();
            }

            @Override
            public HostEnvironment host() {
                return fake.host();
            }

            @Override
            public String measurementPoint() {
                return fake.measurementPoint();
            }
        };
    }

    @Test
    void eachIntervalAndDirectionIsAFrameAndTheMeanRateIsTheirs() throws Exception {
        FakeEngine engine = new FakeEngine();
        Observation o = measure(engine.runner(), LO, Map.of("timeDuration", "0.2", "interval", "0.1"));
        FakeEngine.assertDeclared(kind, o);
        assertTrue(engine.specs.isEmpty(), "passive: nothing asked of the engine");
        assertEquals(Characteristic.ProbeTest.UTILIZATION, o.test());
        assertEquals(3.0, o.summary().get("samples"), "a reading at the start and one after each of 2 intervals");
        List<Observation.Frame> frames = o.frames();
        assertEquals(4, frames.size());
        long outBytes = 0;
        long inBytes = 0;
        long nanos = 0;
        for (int i = 0; i < frames.size(); i++) {
            Observation.Frame f = frames.get(i);
            assertEquals(i, f.seq());
            assertEquals(i % 2, f.ttl(), "out then in");
            assertTrue(f.valueNanos() > 0, "interval " + i + " lasted " + f.valueNanos() + " ns");
            if (f.ttl() == 0) {
                outBytes += f.bytes();
                nanos += f.valueNanos();
            } else {
                inBytes += f.bytes();
            }
        }
        assertEquals(frames.get(0).valueNanos(), frames.get(1).valueNanos(), "both directions of one interval");
        assertTrue(nanos >= 200_000_000L, "the readings span at least the duration asked: " + nanos + " ns");
        assertEquals(outBytes * 8e3 / nanos, o.summary().get("outMbps"), 1e-9);
        assertEquals(inBytes * 8e3 / nanos, o.summary().get("inMbps"), 1e-9);
        assertTrue(o.summary().get("maxOutMbps") >= o.summary().get("outMbps") - 1e-9);
        assertTrue(!o.start().isAfter(o.end()));
    }

    @Test
    void trafficSentOverLoopbackIsCountedBothWays() throws Exception {
        FakeEngine engine = new FakeEngine();
        Observation o = measure(sendingOverLoopback(engine), LO, Map.of("timeDuration", "0.4", "interval", "0.2"));
        FakeEngine.assertDeclared(kind, o);
        Map<String, Double> f = o.summary();
        assertTrue(f.get("outPackets") >= DATAGRAMS, "out packets " + f.get("outPackets"));
        assertTrue(f.get("inPackets") >= DATAGRAMS, "in packets " + f.get("inPackets"));
        long out = 0;
        for (Observation.Frame fr : o.frames()) {
            out += fr.ttl() == 0 ? fr.bytes() : 0;
        }
        assertTrue(out >= (long) DATAGRAMS * PAYLOAD, "out bytes " + out);
        assertEquals(0.0, f.get("outErrors"));
        assertEquals(0.0, f.get("inErrors"));
    }

    @Test
    void theInterfaceIsTheEnvironmentAndTheParametersAreEchoed() throws Exception {
        Observation o = measure(new FakeEngine().runner(), LO, Map.of("timeDuration", "0.05", "interval", "0.05"));
        FakeEngine.assertDeclared(kind, o);
        assertEquals("lo", o.environment().src().nic().name());
        assertEquals("loopback", o.environment().src().nic().driver());
        assertNull(o.environment().dst());
        // lo has no link speed: no utilization percentage is made up
        assertFalse(o.summary().containsKey("speedMbps"));
        assertFalse(o.summary().containsKey("outUtilizationPercent"));
        assertEquals(Map.of("timeDuration", "0.05", "interval", "0.05"), o.parameters());
        assertEquals("nmws-counters", o.tool());
        assertNull(o.toolVersion());
        assertEquals(2, o.frames().size());
        assertTrue(kind.raw(new UtilizationParameters(1, 1)), "the intervals are the answer");
    }

    @Test
    void figuresHaveTheirUnits() {
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("maxInMbps"));
        assertEquals(Unit.MBIT_PER_SECOND, kind.unit("speedMbps"));
        assertEquals(Unit.PERCENT, kind.unit("outUtilizationPercent"));
        assertEquals(Unit.NONE, kind.unit("inDiscards"));
    }

    @Test
    void anUnknownInterfaceOrABadParameterIsRefusedBeforeAnyReading() {
        assertEquals(TestClass.BACKGROUND, kind.testClass(Characteristic.PATH_BANDWIDTH_UTILIZATION));
        FakeEngine engine = new FakeEngine();
        MeasurementException e = assertThrows(MeasurementException.class, () -> measure(engine.runner(),
                new PathSubject(null, new Endpoint("nmws-none0", "interface")), Map.of("timeDuration", "0.05",
                        "interval", "0.05")));
        assertEquals(MeasurementException.Kind.SUBJECT, e.kind());
        assertEquals("interface nmws-none0 does not exist on this measurement point", e.getMessage());
        e = assertThrows(MeasurementException.class, () -> measure(engine.runner(),
                new PathSubject(null, new Endpoint("../lo", "interface")), Map.of("timeDuration", "0.05",
                        "interval", "0.05")));
        assertEquals(MeasurementException.Kind.SUBJECT, e.kind());
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class,
                () -> measure(engine.runner(), LO, Map.of("interval", "0.001")));
        assertEquals("parameter interval is 0.001: must be 0.01..300.0", p.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> measure(engine.runner(), LO, Map.of("timeDuration", "0.5", "interval", "1")));
        assertTrue(engine.specs.isEmpty());
    }
}
