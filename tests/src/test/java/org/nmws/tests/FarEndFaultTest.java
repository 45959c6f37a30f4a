package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.observation.Characteristic.ProbeTest;

/**
 * Issue 21, faults at the far end: the responder killed with SIGKILL mid-session and started
 * again on its port, and a mesh point that does not answer (nothing listening; listening and
 * silent). The client gets a clear error each time, nothing half-written reaches the archive,
 * and the next test succeeds.
 */
class FarEndFaultTest {

    @Test
    void aResponderKilledMidSessionFailsTheTestCleanlyAndTheNextTestToItsRestartSucceeds() throws Exception {
        Responder victim = Responder.start("127.0.0.1");
        int port = victim.port;
        try (Service service = Service.start(Files.createTempDirectory("nmws-responder-killed"),
                "--nmws.responder-port=" + port, "--nmws.measurement-point=point-far")) {
            Archive archive = service.context.getBean(Archive.class);
            RunningTests running = service.context.getBean(RunningTests.class);
            ObservationQuery all = new ObservationQuery(ProbeTest.ROUND_TRIP, "127.0.0.1", null, Instant.EPOCH,
                    Instant.now().plusSeconds(3600), true, 100);
            // 2000 frames at 10 ms: about 20 s, killed once under way.
            String longTest = SoapEndToEndTest.measurementRequest("127.0.0.1", 2000, "").replace(">0.005<", ">0.01<");
            CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return service.post("/nmwg", longTest, "application/xml", null).body();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            ArchiveDownFaultTest.waitFor("the test under way", Duration.ofSeconds(20),
                    () -> running.list().stream().anyMatch(r -> r.done() > 20));
            long killedAt = System.nanoTime();
            victim.kill();
            String failed = answer.get(60, TimeUnit.SECONDS);
            double reported = (System.nanoTime() - killedAt) / 1e9;
            Service.validatedMessage(failed);
            assertTrue(failed.contains("error.mp.measurement"), failed);
            assertFalse(failed.contains("Exception") || failed.contains("\tat "), "no stack trace: " + failed);
            assertEquals(List.of(), archive.find(all), "nothing of the failed test is kept");
            assertEquals(List.of(), running.list(), "the failed test is no longer listed");

            try (Responder again = Responder.start("127.0.0.1", port, List.of())) {
                String ok = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 20, ""), "application/xml",
                        null).body();
                Service.validatedMessage(ok);
                assertFalse(ok.contains("error."), ok);
                assertEquals(1, archive.find(all).size(), "the next test is kept, once");
                assertEquals(20, archive.find(all).get(0).frames().size(), "whole");
                System.out.printf("responder-killed figures: failure reported %.1f s after the kill of a 20 s test; 0 rows of"
                        + " it kept; the next test to the restarted responder kept whole%n", reported);
            }
        } finally {
            victim.close();
        }
    }

    @Test
    void aMeshPointThatDoesNotAnswerIsAClearErrorWithinTheForwardingBound() throws Exception {
        int refusing = Responder.freePort(); // nothing listens here
        List<Socket> held = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // Accepts connections and never answers: a point that hangs.
            Thread acceptor = new Thread(() -> {
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept());
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            }, "silent-point");
            acceptor.setDaemon(true);
            acceptor.start();
            Path mesh = Files.createTempFile("nmws-mesh-down", ".json");
            Files.writeString(mesh, "{\"points\":["
                    + "{\"name\":\"point-a\",\"url\":\"http://127.0.0.1:1\",\"address\":\"127.0.0.1\"},"
                    + "{\"name\":\"point-gone\",\"url\":\"http://127.0.0.1:" + refusing + "\",\"address\":\"127.0.0.5\"},"
                    + "{\"name\":\"point-hung\",\"url\":\"http://127.0.0.1:" + silent.getLocalPort() + "\",\"address\":\"127.0.0.6\"}],"
                    + "\"groups\":[]}");
            // Forwarding waits as long as a test may run (5 s here) plus the forwarding margin (3 s here).
            try (Service a = Service.start(Files.createTempDirectory("nmws-mesh-down"), "--nmws.measurement-point=point-a",
                    "--nmws.mesh.file=" + mesh, "--nmws.limits.max-duration=PT5S", "--nmws.mesh.forward-margin=PT3S")) {
                for (String point : List.of("point-gone", "point-hung")) {
                    String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "").replace(
                            "<nmwgt:dst type=\"ipv4\"", "<nmwgt:src type=\"hostname\" value=\"" + point + "\"/><nmwgt:dst type=\"ipv4\"");
                    long t = System.nanoTime();
                    String body = a.post("/nmwg", request, "application/xml", null).body();
                    double seconds = (System.nanoTime() - t) / 1e9;
                    Service.validatedMessage(body);
                    assertTrue(body.contains("error.mp.measurement") && body.contains(point), body);
                    assertFalse(body.contains("Exception") || body.contains("\tat "), "no stack trace: " + body);
                    System.out.printf("mesh-point-down figures: %s answered with a clear error in %.1f s (bound 8 s)%n",
                            point, seconds);
                    // the bound is the function here: a hung point must not hold the caller past it
                    assertTrue(seconds < 8 + 4, point + " answered after " + seconds + " s, bound 8 s");
                }
                // The point itself still answers.
                assertEquals(200, a.get("/actuator/health").statusCode());
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
