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
            // round trips that started while a minute of each stream ran, by the runs' own records
            // (a stream leaves a second between its minutes: a round trip then is not counted)
            Instant bothRunning = Instant.now();
            List<String> during = new ArrayList<>();
            while (during.size() < 3 && Instant.now().isBefore(bothRunning.plusSeconds(40))) {
                Thread.sleep(1000);
                during.clear();
                List<Instant[]> one = spans(s, "owd-1");
                List<Instant[]> two = spans(s, "owd-2");
                for (JsonNode r : runs(s, "rtt-3")) {
                    if (r.get("status").asText().equals("DONE")) {
                        Instant t = Instant.parse(r.get("started").asText());
                        if (t.isAfter(bothRunning) && covered(one, t) && covered(two, t)) {
                            during.add(t.toString());
                        }
                    }
                }
            }
            assertTrue(during.size() >= 3, "round trips done, on the one worker, while both streams ran: " + during + "; "
                    + s.get("/api/schedules/rtt-3/runs").body() + s.get("/api/schedules/owd-1/runs").body()
                    + s.get("/api/schedules/owd-2/runs").body());
        }
    }

    /** [started, ended] of each of a schedule's runs that started; ended far ahead while it runs. */
    private static List<Instant[]> spans(Service s, String name) throws Exception {
        List<Instant[]> out = new ArrayList<>();
        for (JsonNode r : runs(s, name)) {
            if (r.hasNonNull("started")) {
                out.add(new Instant[] {Instant.parse(r.get("started").asText()),
                    r.hasNonNull("ended") ? Instant.parse(r.get("ended").asText()) : Instant.MAX});
            }
        }
        return out;
    }

    private static boolean covered(List<Instant[]> spans, Instant t) {
        return spans.stream().anyMatch(x -> !t.isBefore(x[0]) && !t.isAfter(x[1]));
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
