package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 item 2: one grid for the whole mesh from any point. Two points of one mesh on this
 * host, each with its own service, responder and archive (none shared), and a third whose
 * service takes connections but never answers. point-a's grid holds its own definitions from
 * its archive and point-b's read from point-b's API; point-c is shown as not answering within
 * the timeout; point-b, stopped, is shown unreachable by the next grid.
 */
class GridEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theGridOfAPointThatSharesNoArchiveShowsEveryPointsDefinitionsAndAStoppedPointAsUnreachable() throws Exception {
        try (Responder ra = Responder.start("127.0.0.1"); Responder rb = Responder.start("127.0.0.2");
             ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int pa = Responder.freePort();
            int pb = Responder.freePort();
            Path mesh = Files.createTempFile("nmws-grid", ".json");
            Files.writeString(mesh, "{\"points\":["
                    + "{\"name\":\"point-a\",\"url\":\"http://127.0.0.1:" + pa + "\",\"address\":\"127.0.0.1\",\"responderPort\":" + ra.port + "},"
                    + "{\"name\":\"point-b\",\"url\":\"http://127.0.0.1:" + pb + "\",\"address\":\"127.0.0.2\",\"responderPort\":" + rb.port + "},"
                    + "{\"name\":\"point-c\",\"url\":\"http://127.0.0.1:" + silent.getLocalPort() + "\",\"address\":\"127.0.0.3\"}],"
                    + "\"groups\":[{\"name\":\"latency\",\"characteristic\":\"path.delay.roundTrip\",\"period\":\"PT2S\","
                    + "\"parameters\":{\"count\":\"5\",\"interval\":\"0.01\"},"
                    + "\"pairs\":[[\"point-a\",\"point-b\"],[\"point-b\",\"point-a\"]]}]}");
            Service b = Service.start(Files.createTempDirectory("nmws-grid-b"), pb, "--nmws.measurement-point=point-b",
                    "--nmws.mesh.file=" + mesh, "--nmws.grid.remote-timeout=PT2S");
            try (Service a = Service.start(Files.createTempDirectory("nmws-grid-a"), pa, "--nmws.measurement-point=point-a",
                    "--nmws.mesh.file=" + mesh, "--nmws.grid.remote-timeout=PT2S")) {
                // point-a's own schedule to a port where nothing answers: it never gives a result
                HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(a.baseUrl + "/api/schedules/nobody-there"))
                        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(
                                "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.2\",\"period\":\"PT2S\","
                                        + "\"parameters\":{\"count\":\"3\",\"port\":\"" + Responder.freePort() + "\"}}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, put.statusCode(), put.body());

                JsonNode grid = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
                while (System.nanoTime() < deadline) {
                    grid = grid(a);
                    if (state(grid, "point-a", "point-b", "latency:point-a:point-b").equals("ok")
                            && state(grid, "point-b", "point-a", "latency:point-b:point-a").equals("ok")
                            && state(grid, "point-a", "point-b", "nobody-there").equals("failing")) {
                        break;
                    }
                    Thread.sleep(500);
                }
                assertEquals(List.of("point-a", "point-b", "point-c"), texts(grid.get("rows")));
                // point-a's own definition, from its archive: its latest result, as point-a stored it
                JsonNode ab = definition(grid, "point-a", "point-b", "latency:point-a:point-b");
                assertEquals("ok", ab.get("state").asText(), ab.toString());
                assertEquals("self", ab.get("via").asText());
                assertEquals("latency", ab.get("definition").asText());
                JsonNode stored = JSON.readTree(a.get("/api/observations/" + ab.get("result").get("observationId").asLong()).body());
                assertEquals(stored.get("summary").get("medianRtt").asDouble(), ab.get("result").get("figures").get("rttMs").asDouble(), 0.0);
                assertEquals(stored.get("end").asText(), ab.get("result").get("end").asText());
                double age = ab.get("result").get("ageSeconds").asDouble();
                double expectedAge = (Instant.parse(grid.get("generated").asText()).toEpochMilli()
                        - Instant.parse(stored.get("end").asText()).toEpochMilli()) / 1000.0;
                assertEquals(expectedAge, age, 0.0015, "the age is the time from the result's end to the grid's (to the millisecond)");
                // point-b's definition, read from point-b's API: what point-b's archive holds
                JsonNode ba = definition(grid, "point-b", "point-a", "latency:point-b:point-a");
                assertEquals("ok", ba.get("state").asText(), ba.toString());
                assertEquals("remote", ba.get("via").asText());
                JsonNode atB = JSON.readTree(b.get("/api/observations/" + ba.get("result").get("observationId").asLong()).body());
                assertEquals("point-b", atB.get("measurementPoint").asText());
                assertEquals(atB.get("summary").get("medianRtt").asDouble(), ba.get("result").get("figures").get("rttMs").asDouble(), 0.0);
                // the schedule that never gives a result is failing, with the reason of its last run
                JsonNode broken = definition(grid, "point-a", "point-b", "nobody-there");
                assertEquals("failing", broken.get("state").asText(), broken.toString());
                assertTrue(broken.get("reason").asText().startsWith("never gave a result; its last run"), broken.toString());
                assertEquals("failing", cell(grid, "point-a", "point-b").get("state").asText(), "the worst definition colours the cell");
                // point-c takes the connection and never answers: shown so, within the timeout
                JsonNode c = point(grid, "point-c");
                assertEquals(false, c.get("reachable").asBoolean());
                assertEquals("did not answer within 2000 ms", c.get("error").asText());
                assertEquals(true, point(grid, "point-b").get("reachable").asBoolean());

                b.close();
                long asked = System.nanoTime();
                JsonNode after = grid(a);
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                JsonNode gone = point(after, "point-b");
                assertEquals(false, gone.get("reachable").asBoolean(), gone.toString());
                assertTrue(gone.get("error").asText().startsWith("cannot be reached at http://127.0.0.1:" + pb), gone.toString());
                assertTrue(tookMs < 10_000, "the grid is bounded by the timeout, not by the slowest point: " + tookMs + " ms");
                for (JsonNode cell : after.get("cells")) {
                    assertTrue(!cell.get("src").asText().equals("point-b"), "nothing is said for point-b now: " + cell);
                }
                assertEquals("ok", state(after, "point-a", "point-b", "latency:point-a:point-b"),
                        "point-a's own row does not depend on point-b's service");
                // the local scope is what other points read: point-a's own definitions, nobody asked
                JsonNode local = JSON.readTree(a.get("/api/grid?scope=local").body());
                assertEquals(List.of(), texts(local.get("points")));
                assertEquals(400, a.get("/api/grid?scope=everything").statusCode());
            } finally {
                b.close();
            }
        }
    }

    private JsonNode grid(Service s) throws Exception {
        HttpResponse<String> r = s.get("/api/grid");
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.isTextual() ? n.asText() : n.toString()));
        return out;
    }

    private static JsonNode point(JsonNode grid, String name) {
        for (JsonNode p : grid.get("points")) {
            if (p.get("name").asText().equals(name)) {
                return p;
            }
        }
        throw new AssertionError("no point " + name + " in " + grid.get("points"));
    }

    private static JsonNode cell(JsonNode grid, String src, String dst) {
        for (JsonNode c : grid.get("cells")) {
            if (c.get("src").asText().equals(src) && c.get("dst").asText().equals(dst)) {
                return c;
            }
        }
        throw new AssertionError("no cell " + src + " -> " + dst + " in " + grid);
    }

    private static JsonNode definition(JsonNode grid, String src, String dst, String name) {
        for (JsonNode d : cell(grid, src, dst).get("definitions")) {
            if (d.get("name").asText().equals(name)) {
                return d;
            }
        }
        throw new AssertionError("no definition " + name + " in " + cell(grid, src, dst));
    }

    private static String state(JsonNode grid, String src, String dst, String name) {
        for (JsonNode c : grid.get("cells")) {
            if (c.get("src").asText().equals(src) && c.get("dst").asText().equals(dst)) {
                for (JsonNode d : c.get("definitions")) {
                    if (d.get("name").asText().equals(name)) {
                        return d.get("state").asText();
                    }
                }
            }
        }
        return "absent";
    }
}
