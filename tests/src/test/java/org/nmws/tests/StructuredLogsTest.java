package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The service's structured logs as an operator turns them on (docs/user-guide.md, "Logs"):
 * the boot jar in a process of its own, ECS JSON on standard output and Logstash JSON in a
 * file; every line is one JSON object a log shipper can take, with time, level, logger and
 * message, and the service's name.
 */
class StructuredLogsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void withStructuredLoggingEveryLineIsAJsonObjectWithTimeLevelAndMessage() throws Exception {
        Path jar = Path.of(System.getProperty("nmws.service.jar", "../service/target/nmws-service-0.1.0-SNAPSHOT-exec.jar"));
        Path dir = Files.createTempDirectory("nmws-logs");
        Path stdout = dir.resolve("stdout");
        Path file = dir.resolve("nmws.log");
        int port = Responder.freePort();
        try (Responder responder = Responder.start()) {
            Process service = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-jar", jar.toAbsolutePath().toString(), "--server.port=" + port, "--server.address=127.0.0.1",
                    "--nmws.data-dir=" + dir, "--nmws.responder-port=" + responder.port,
                    "--logging.structured.format.console=ecs", "--logging.structured.format.file=logstash",
                    "--logging.file.name=" + file)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).redirectOutput(stdout.toFile()).start();
            try {
                waitForPort(service, port, stdout);
                // a test, so lines come from nmws's own code as well as from start-up
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/nmwg")).header("Content-Type", "application/xml")
                        .POST(HttpRequest.BodyPublishers.ofString(SoapEndToEndTest.measurementRequest("127.0.0.1", 5, ""))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertTrue(r.body().contains("MeasurementResponse") && !r.body().contains("error."), r.body());
            } finally {
                service.destroy();
                service.waitFor(20, TimeUnit.SECONDS);
            }
        }

        List<JsonNode> ecs = jsonLines(stdout);
        JsonNode started = ecs.stream().filter(j -> j.path("message").asText().startsWith("Started NmwsApplication"))
                .findFirst().orElseThrow(() -> new AssertionError("no start line in " + ecs));
        assertEquals("INFO", started.path("log").path("level").asText(), started.toString());
        assertEquals("org.nmws.service.NmwsApplication", started.path("log").path("logger").asText(), started.toString());
        assertEquals("nmws", started.path("service").path("name").asText(), started.toString());
        assertTrue(started.path("@timestamp").asText().matches("\\d{4}-\\d\\d-\\d\\dT.*"), started.toString());
        assertTrue(started.path("ecs").path("version").isTextual(), started.toString());

        List<JsonNode> logstash = jsonLines(file);
        JsonNode fileStarted = logstash.stream().filter(j -> j.path("message").asText().startsWith("Started NmwsApplication"))
                .findFirst().orElseThrow(() -> new AssertionError("no start line in " + logstash));
        assertEquals("INFO", fileStarted.path("level").asText(), fileStarted.toString());
        assertEquals("org.nmws.service.NmwsApplication", fileStarted.path("logger_name").asText());
        assertTrue(fileStarted.path("@timestamp").isTextual() && fileStarted.path("@version").isTextual(), fileStarted.toString());
    }

    /** Every line of a log as JSON: a line that is not one object fails the test (a shipper would drop it). */
    private static List<JsonNode> jsonLines(Path log) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode j = JSON.readTree(line);
                assertTrue(j.isObject(), line);
                out.add(j);
            } catch (IOException e) {
                fail(log.getFileName() + " holds a line that is not JSON: " + line);
            }
        }
        assertTrue(out.size() > 5, "lines in " + log + ": " + out.size());
        return out;
    }

    private static void waitForPort(Process p, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("service did not start: " + Files.readString(log));
                }
                Thread.sleep(100);
            }
        }
    }
}
