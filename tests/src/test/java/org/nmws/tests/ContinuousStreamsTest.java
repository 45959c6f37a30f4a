package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: a point holds its continuous streams beside its other runs. Each stream's minute
 * runs on a thread of its own, as perfSONAR runs a powstream per stream, so a point with one
 * scheduler worker runs two continuous one-way streams and, while both run, its round trips
 * every 2 s. Before, each stream held a worker for its minute: with one worker, the second
 * stream and every round trip waited for the first stream to end.
 */
class ContinuousStreamsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void twoStreamsAndRoundTripsRunAtOnceOnOneWorker() throws Exception {
        try (Responder r1 = Responder.start("127.0.0.1"); Responder r2 = Responder.start("127.0.0.2");
             Responder r3 = Responder.start("127.0.0.3");
             Service s = Service.start(dir, "--nmws.scheduler.workers=1", "--nmws.limits.tests-per-client-per-minute=0")) {
            put(s, "owd-1", "{\"characteristic\":\"path.delay.oneWay\",\"dst\":\"127.0.0.1\",\"continuous\":true,"
                    + "\"parameters\":{\"port\":\"" + r1.port + "\"}}");
            put(s, "owd-2", "{\"characteristic\":\"path.delay.oneWay\",\"dst\":\"127.0.0.2\",\"continuous\":true,"
                    + "\"parameters\":{\"port\":\"" + r2.port + "\"}}");
            put(s, "rtt-3", "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.3\",\"period\":\"PT2S\","
                    + "\"parameters\":{\"count\":\"3\",\"interval\":\"0.01\",\"port\":\"" + r3.port + "\"}}");
            // each stream's minutes begin at its phase in the minute: both running, then round trips while they run
            Instant deadline = Instant.now().plusSeconds(140);
            while (!(running(s, "owd-1") && running(s, "owd-2"))) {
                assertTrue(Instant.now().isBefore(deadline), "both streams running within a minute: "
                        + s.get("/api/schedules/owd-1/runs").body() + s.get("/api/schedules/owd-2/runs").body());
                Thread.sleep(200);
            }
            Instant bothRunning = Instant.now();
            List<String> during = new ArrayList<>();
            while (during.size() < 3 && Instant.now().isBefore(bothRunning.plusSeconds(20))) {
                during.clear();
                for (JsonNode r : runs(s, "rtt-3")) {
                    if (r.get("status").asText().equals("DONE") && Instant.parse(r.get("started").asText()).isAfter(bothRunning)) {
                        during.add(r.get("started").asText());
                    }
                }
                Thread.sleep(500);
            }
            assertTrue(during.size() >= 3, "round trips done while both streams run: " + during + "; "
                    + s.get("/api/schedules/rtt-3/runs").body());
            assertTrue(running(s, "owd-1") && running(s, "owd-2"), "the streams still run");
            // one worker, and three runs at once: the streams were not on it
            assertEquals(1, s.context.getBean(org.nmws.service.schedule.ScheduleProperties.class).workers());
        }
    }

    private static void put(Service s, String name, String body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    private static JsonNode runs(Service s, String name) throws Exception {
        return JSON.readTree(s.get("/api/schedules/" + name + "/runs").body());
    }

    private static boolean running(Service s, String name) throws Exception {
        for (JsonNode r : runs(s, name)) {
            if (r.get("status").asText().equals("RUNNING")) {
                return true;
            }
        }
        return false;
    }
}
