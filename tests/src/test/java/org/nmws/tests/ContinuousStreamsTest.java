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
            String one = soonStream(s, "owd-1", "127.0.0.1", r1.port);
            String two = soonStream(s, "owd-2", "127.0.0.2", r2.port);
            put(s, "rtt-3", "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.3\",\"period\":\"PT2S\","
                    + "\"parameters\":{\"count\":\"3\",\"interval\":\"0.01\",\"port\":\"" + r3.port + "\"}}");
            // each stream's minutes begin at its phase in the minute: both running, then round trips while they run
            Instant deadline = Instant.now().plusSeconds(140);
            while (!(running(s, one) && running(s, two))) {
                assertTrue(Instant.now().isBefore(deadline), "both streams running within a minute: "
                        + s.get("/api/schedules/" + one + "/runs").body() + s.get("/api/schedules/" + two + "/runs").body());
                Thread.sleep(200);
            }
            // round trips that started while a minute of each stream ran, by the runs' own records
            // (a stream leaves a second between its minutes: a round trip then is not counted)
            Instant bothRunning = Instant.now();
            List<String> during = new ArrayList<>();
            while (during.size() < 3 && Instant.now().isBefore(bothRunning.plusSeconds(40))) {
                Thread.sleep(1000);
                during.clear();
                List<Instant[]> first = spans(s, one);
                List<Instant[]> second = spans(s, two);
                for (JsonNode r : runs(s, "rtt-3")) {
                    if (r.get("status").asText().equals("DONE")) {
                        Instant t = Instant.parse(r.get("started").asText());
                        if (t.isAfter(bothRunning) && covered(first, t) && covered(second, t)) {
                            during.add(t.toString());
                        }
                    }
                }
            }
            assertTrue(during.size() >= 3, "round trips done, on the one worker, while both streams ran: " + during + "; "
                    + s.get("/api/schedules/rtt-3/runs").body() + s.get("/api/schedules/" + one + "/runs").body()
                    + s.get("/api/schedules/" + two + "/runs").body());
        }
    }

    /**
     * A continuous stream whose phase in the minute (drawn from its name, ScheduleRequest.phase)
     * comes 10-25 s from now: names are tried until one does, so the test does not wait most of a
     * minute for a phase it cannot choose. The phase is read back from the schedule's start as made.
     */
    private static String soonStream(Service s, String base, String dst, int port) throws Exception {
        for (int k = 0; k < 60; k++) {
            String name = base + "-" + k;
            String made = put(s, name, "{\"characteristic\":\"path.delay.oneWay\",\"dst\":\"" + dst + "\",\"continuous\":true,"
                    + "\"parameters\":{\"port\":\"" + port + "\"}}");
            long phaseMs = Instant.parse(JSON.readTree(made).get("start").asText())
                    .toEpochMilli() % 60_000;
            long wait = Math.floorMod(phaseMs - System.currentTimeMillis() % 60_000, 60_000L);
            if (wait >= 10_000 && wait <= 25_000) {
                return name;
            }
            HttpResponse<String> d = HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                    .DELETE().timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(d.statusCode() / 100 == 2, d.body());
        }
        throw new AssertionError("no name of " + base + "-0..59 has its phase 10-25 s ahead");
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

    private static String put(Service s, String name, String body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
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
