package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nmws.probe.Probe;
import org.nmws.probe.ProbeException;
import org.nmws.service.measure.Engine;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Authenticated STAMP as a client asks for it (NMWG parameters authMode and keyId), through the
 * kind, the native engine over JNI and a real nmprobe-responder whose reflector holds the key
 * (--stamp-key-file): the key reaches the engine only from the service's key file.
 */
class StampAuthenticatedThroughJniTest {
    private static final Pattern STAMP_PORT = Pattern.compile("TWAMP-Light reflector on UDP port (\\d+)");
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("127.0.0.1", "ipv4"));

    private static Path keys;
    private static Process responder;
    private static final StringBuffer LOG = new StringBuffer();
    private static int stampPort;

    @BeforeAll
    static void startAKeyedReflector() throws Exception {
        assertTrue(Probe.isAvailable(), "the native engine: " + Probe.unavailabilityCause());
        keys = Files.createTempFile("stamp-keys", ".pfs",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(keys, "# the lab's STAMP keys\nother " + "11".repeat(16) + "\nlab " + "c3".repeat(32) + "\n");
        Path bin = Path.of(System.getProperty("nmws.responder.bin", "../native-probe/target/native/bin/nmprobe-responder"));
        assertTrue(Files.isExecutable(bin), "responder binary missing: " + bin.toAbsolutePath() + " (build native-probe first)");
        responder = new ProcessBuilder(bin.toString(), "-b", "127.0.0.1", "-p", "0", "--stamp-port", "0",
                "--stamp-key-file", keys.toString()).redirectErrorStream(true).start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(responder.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    LOG.append(line).append('\n');
                    Matcher m = STAMP_PORT.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (java.io.IOException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new IllegalStateException("responder exited: " + LOG));
        }, "stamp-responder-log");
        reader.setDaemon(true);
        reader.start();
        stampPort = port.get(10, TimeUnit.SECONDS);
        Probe.useStampKeys(keys.toString());
    }

    @AfterAll
    static void stop() throws Exception {
        Probe.useStampKeys(null);
        responder.destroy();
        assertTrue(responder.waitFor(10, TimeUnit.SECONDS));
        Files.deleteIfExists(keys);
    }

    private static Observation measure(Map<String, String> nmwg) throws Exception {
        StampKind kind = new StampKind();
        java.util.Map<String, String> p = new java.util.HashMap<>(nmwg);
        p.put("protocol", "STAMP");
        p.put("port", Integer.toString(stampPort));
        return kind.run(kind.parse(p, Characteristic.PATH_DELAY_ROUNDTRIP, RoundTripKindTest.CONTEXT), PATH,
                FakeEngine.runner(Engine.NATIVE, true));
    }

    @Test
    void anAuthenticatedTestNamesItsKeyAndEveryPacketIsReflected() throws Exception {
        Observation o = measure(Map.of("authMode", "authenticated", "keyId", "lab", "count", "100", "interval", "0.001"));
        Map<String, Double> f = o.summary();
        assertEquals(100.0, f.get("received"), f.toString());
        assertEquals(0.0, f.get("lossPercent"));
        assertEquals(0.0, f.get("authFailed"));
        assertTrue(f.get("minRtt") > 0 && f.get("medianRtt") < 5, "loopback round trip " + f.get("medianRtt"));
        assertEquals("authenticated", o.parameters().get("authMode"));
        assertEquals("lab", o.parameters().get("keyId"));
        assertEquals("112", o.parameters().get("packetSize"), "no padding in authenticated mode is 112 bytes");
    }

    @Test
    void anOpenTestToTheKeyedReflectorSaysItRequiresAuthentication() {
        ProbeException e = assertThrows(ProbeException.class, () -> measure(Map.of("count", "5", "timeout", "0.1")));
        assertEquals(ProbeException.Reason.TIMEOUT, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("the reflector requires authentication"), e.getMessage());
    }

    @Test
    void aKeyIdTheFileLacksIsNamed() {
        ProbeException e = assertThrows(ProbeException.class,
                () -> measure(Map.of("authMode", "authenticated", "keyId", "nobody")));
        assertTrue(e.getMessage().contains("has no key nobody"), e.getMessage());
    }
}
