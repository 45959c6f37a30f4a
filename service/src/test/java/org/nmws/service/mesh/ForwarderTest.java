package org.nmws.service.mesh;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.nmws.service.nmwg.SafeXml;
import org.nmws.service.observation.Endpoint;

/** A point that answers without end is read only up to the XML size limit, over real HTTP. */
class ForwarderTest {

    @Test
    void anEndlessAnswerIsReadOnlyUpToTheSizeLimit() throws Exception {
        AtomicLong sent = new AtomicLong();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, 0); // chunked, no length: as long as the point likes
            byte[] chunk = "<x>".repeat(10_000).getBytes();
            try (OutputStream out = exchange.getResponseBody()) {
                // 1 GB unless the reader stops: it must stop near the 64 kB limit
                for (int i = 0; i < 1_000_000_000 / chunk.length; i++) {
                    out.write(chunk);
                    sent.addAndGet(chunk.length);
                }
            } catch (java.io.IOException readerGone) {
                // the forwarder closed the stream once it had read enough
            }
        });
        server.start();
        try {
            Mesh mesh = meshOf("far", server);
            SafeXml xml = new SafeXml(65536, 32);
            Forwarder f = new Forwarder(mesh, "self", xml::parse, Duration.ofSeconds(30), 65536);
            Forwarder.ForwardException e = assertThrows(Forwarder.ForwardException.class, () -> f.forward(
                    mesh.point("far").orElseThrow(), "MeasurementRequest", "path.delay.roundTrip", Endpoint.parse("10.0.0.1", null),
                    Map.of()));
            assertTrue(e.getMessage().contains("not an acceptable NMWG message"), e.getMessage());
            Thread.sleep(200);
            assertTrue(sent.get() < 64L << 20, "the point stopped being read after " + sent.get() + " bytes");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aPointThatStallsItsAnswerIsCutWhenTheTimeIsUp() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("<x".getBytes());
                out.flush();
                Thread.sleep(30_000); // headers sent, the body never finished
            } catch (InterruptedException | java.io.IOException gone) {
                // the server stops
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        try {
            Mesh mesh = meshOf("slow", server);
            SafeXml xml = new SafeXml(65536, 32);
            Forwarder f = new Forwarder(mesh, "self", xml::parse, Duration.ofSeconds(2), 65536);
            long t0 = System.nanoTime();
            assertThrows(Forwarder.ForwardException.class, () -> f.forward(mesh.point("slow").orElseThrow(),
                    "MeasurementRequest", "path.delay.roundTrip", Endpoint.parse("10.0.0.1", null), Map.of()));
            // bounded by the timeout (2 s), not by the point (30 s); no timed assertion on how close
            assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "the forward waited for the stalled point");
        } finally {
            server.stop(0);
        }
    }

    /** A mesh file with one point, the given server. */
    private static Mesh meshOf(String name, HttpServer server) throws java.io.IOException {
        Path file = Files.createTempFile("mesh", ".json");
        Files.writeString(file, "{\"points\":[{\"name\":\"" + name + "\",\"url\":\"http://127.0.0.1:"
                + server.getAddress().getPort() + "\",\"address\":\"192.0.2.7\",\"responderPort\":8700}],\"groups\":[]}");
        return Mesh.load(file);
    }
}
