package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Regular measurements through the real service, JNI and a responder: schedules from the
 * configuration and from the JSON API run on their periods into the archive, exclusive tests
 * never share the host with normal ones (checked from the runs' stored start and end), an
 * over-booked exclusive slot becomes a non-starter with its reason, and a point that stops
 * and starts again resumes its schedules without running a slot twice.
 */
class SchedulesEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void schedulesRunOnTheirPeriodsKeepClassesApartAndSurviveARestart() throws Exception {
        Path data = Files.createTempDirectory("nmws-schedules");
        // A responder per destination, so that tests meet only through their classes, not a shared path.
        try (Responder responder = Responder.start(); Responder r2 = Responder.start("127.0.0.2");
             Responder r3 = Responder.start("127.0.0.3"); Responder r4 = Responder.start("127.0.0.4")) {
            String[] args = {"--nmws.responder-port=" + responder.port, "--nmws.measurement-point=point-a",
                    // from the configuration: a background round trip every 2 s
                    "--nmws.scheduler.schedules[0].name=rtt-local", "--nmws.scheduler.schedules[0].characteristic=path.delay.roundTrip",
                    "--nmws.scheduler.schedules[0].dst=127.0.0.1", "--nmws.scheduler.schedules[0].period=PT2S",
                    "--nmws.scheduler.schedules[0].parameters.count=5", "--nmws.scheduler.schedules[0].parameters.interval=0.01"};
            Instant begin;
            try (Service service = Service.start(data, args)) {
                // through the API: a normal one-way test (about 1 s) every 3 s, and two exclusive
                // throughput tests (about 2.5 s each, longer than their 2 s grace) planned on the
                // same 6 s slots: one of each pair cannot start in its slot.
                put(service, "owd", "{\"characteristic\":\"path.delay.oneWay\",\"dst\":\"127.0.0.2\",\"period\":\"PT3S\","
                        + "\"parameters\":{\"count\":\"50\",\"interval\":\"0.01\",\"timeout\":\"0.5\",\"port\":\""
                        + r2.port + "\"}}");
                int i = 0;
                for (Responder r : List.of(r3, r4)) {
                    i++;
                    put(service, "bw-" + i, "{\"characteristic\":\"path.bandwidth.achievable.UDP\",\"dst\":\"127.0.0." + (2 + i)
                            + "\",\"period\":\"PT6S\",\"parameters\":{\"count\":\"2500\",\"packetSize\":\"1000\","
                            + "\"bandwidthLimit\":\"8M\",\"port\":\"" + r.port + "\"}}");
                }
                begin = Instant.now();
                Thread.sleep(18_000);
                // The plan is over-booked for exclusive tests; a background one runs now (the
                // availability arithmetic is checked in SchedulerAvailabilityTest).
                JsonNode avail = get(service, "/api/availability?class=exclusive&duration=PT1S");
                assertTrue(Instant.parse(avail.get("earliest").asText()).isAfter(Instant.now().minusSeconds(5)), avail.toString());
                assertEquals(0, get(service, "/api/availability?class=background&duration=PT1M").get("inSeconds").asLong());
            }
            Instant stopped = Instant.now();
            Thread.sleep(3_000); // the point is down for a few slots
            try (Service again = Service.start(data, args)) {
                Thread.sleep(7_000);
                Instant end = Instant.now();
                List<JsonNode> rtt = runs(again, "rtt-local");
                List<JsonNode> owd = runs(again, "owd");
                List<JsonNode> bw = new ArrayList<>(runs(again, "bw-1"));
                bw.addAll(runs(again, "bw-2"));

                // No slot ran twice, before or after the restart.
                for (List<JsonNode> series : List.of(rtt, owd, bw)) {
                    Set<String> slots = new HashSet<>();
                    for (JsonNode r : series) {
                        assertTrue(slots.add(r.get("scheduleId").asText() + "/" + r.get("slot").asText()), "slot twice: " + r);
                    }
                }
                // Every 2 s over the time the point was up (about 18 + 7 s): the round trips all ran.
                long upSeconds = Duration.between(begin, stopped).toSeconds() + 7;
                long rttDone = done(rtt);
                assertTrue(Math.abs(rttDone - upSeconds / 2.0) <= 2, rttDone + " round trips done in about " + upSeconds + " s up: "
                        + rtt);
                // Exclusive tests never overlap a normal test or each other: the stored observations'
                // start and end (a run's own times include its wait for the interlock).
                List<JsonNode> exclusive = observations(again, "path.bandwidth.achievable.UDP", "127.0.0.3");
                exclusive.addAll(observations(again, "path.bandwidth.achievable.UDP", "127.0.0.4"));
                List<JsonNode> normal = observations(again, "path.delay.oneWay", "127.0.0.2");
                assertEquals(bw.stream().filter(r -> r.get("status").asText().equals("DONE")).count(), exclusive.size(),
                        "each done run kept one observation");
                // Enough of each for the overlap check (the slots are few: the point was down for some).
                assertTrue(exclusive.size() >= 2 && normal.size() >= 3, "exclusive " + exclusive.size() + ", normal " + normal.size()
                        + ":\n" + brief(bw) + "\n" + brief(owd));
                for (JsonNode x : exclusive) {
                    assertTrue(x.has("start") && x.has("end"), x.toString());
                }
                for (JsonNode x : exclusive) {
                    for (JsonNode o : normal) {
                        assertTrue(!overlap(x, o), "exclusive " + x + " overlapped normal " + o);
                    }
                    for (JsonNode y : exclusive) {
                        assertTrue(x == y || !overlap(x, y), "two exclusive runs overlapped: " + x + " " + y);
                    }
                }
                // The over-booked exclusive slots and the slots missed while down are non-starters with a reason.
                assertTrue(bw.stream().anyMatch(r -> r.get("status").asText().equals("NONSTARTER")
                        && !r.get("reason").isNull()), "an over-booked exclusive slot did not start: " + bw);
                assertTrue(rtt.stream().allMatch(r -> !r.get("status").asText().equals("NONSTARTER") || !r.get("reason").isNull()));
                // Each done run points at its stored observation, which the archive returns.
                JsonNode one = rtt.stream().filter(r -> r.get("status").asText().equals("DONE")).findFirst().orElseThrow();
                assertTrue(one.get("observationId").asLong() > 0);
                JsonNode stored = get(again, "/api/results?dst=127.0.0.1&characteristic=path.delay.roundTrip&limit=1000");
                assertTrue(stored.get("count").asLong() >= rttDone, stored.get("count") + " stored, " + rttDone + " done");
                assertTrue(end.isAfter(begin));
            }
        }
    }

    @Test
    void anNmwgRequestAndTheCliMakeSchedulesAndAContinuousOneIsKeptAMinuteAtATime() throws Exception {
        try (Responder responder = Responder.start();
             Service service = Service.start(Files.createTempDirectory("nmws-schedules-forms"),
                     "--nmws.responder-port=" + responder.port, "--nmws.measurement-point=point-f")) {
            String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5,
                    "<nmwg:parameter name=\"schedule.period\">PT2S</nmwg:parameter>"
                            + "<nmwg:parameter name=\"schedule.name\">nmwg-rtt</nmwg:parameter>");
            org.w3c.dom.Element answer = Service.validatedMessage(service.soap11(request).body());
            assertEquals("success.schedule", answer.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent(),
                    answer.getTextContent());
            SoapEndToEndTest.assertError(service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 5,
                    "<nmwg:parameter name=\"schedule.period\">soon</nmwg:parameter>"), "application/xml", null),
                    "error.common.parameter");
            Thread.sleep(5_000);
            assertTrue(done(runs(service, "nmwg-rtt")) >= 1, "the schedule made by NMWG runs: " + runs(service, "nmwg-rtt"));

            // An on-demand exclusive test (about 3 s, to a responder of its own so that it meets the
            // schedule only through its class) holds the host: availability leaves room for it.
            Responder other = Responder.start("127.0.0.5");
            java.util.concurrent.CompletableFuture<String> exclusive = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.5", 5,
                                    "<nmwg:parameter name=\"port\">" + other.port + "</nmwg:parameter>")
                            .replace("path.delay.roundTrip", "path.bandwidth.achievable.UDP")
                            .replace("<nmwg:parameter name=\"count\">5</nmwg:parameter><nmwg:parameter name=\"interval\">0.005"
                                    + "</nmwg:parameter>", "<nmwg:parameter name=\"count\">3000</nmwg:parameter>"
                                    + "<nmwg:parameter name=\"packetSize\">1000</nmwg:parameter>"
                                    + "<nmwg:parameter name=\"bandwidthLimit\">8M</nmwg:parameter>"), "application/xml", null).body();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            JsonNode during = null;
            while (!exclusive.isDone()) {
                if (get(service, "/api/tests").toString().contains("path.bandwidth.achievable.UDP")) {
                    during = get(service, "/api/availability?class=normal&duration=PT1S");
                    break;
                }
                Thread.sleep(20);
            }
            assertTrue(during != null && during.get("inSeconds").asLong() >= 1,
                    "a normal test must wait for the running exclusive one: " + during);
            assertTrue(exclusive.get(60, java.util.concurrent.TimeUnit.SECONDS).contains("path.bandwidth.achievable.UDP"));
            other.close();

            java.io.StringWriter out = new java.io.StringWriter();
            picocli.CommandLine cli = new picocli.CommandLine(new org.nmws.client.cli.NmwsCli());
            cli.setOut(new java.io.PrintWriter(out, true));
            assertEquals(0, cli.execute("--url", service.baseUrl, "schedule", "add", "owd-c", "-c", "path.delay.oneWay",
                    "--dst", "127.0.0.1", "--continuous", "-p", "port=" + responder.port, "--json"), out.toString());
            JsonNode owd = JSON.readTree(out.toString());
            assertEquals("PT1M", owd.get("period").asText());
            assertEquals("background", owd.get("testClass").asText());
            // 10 frames a second, ending (with its 1 s timeout) a second before the next minute
            assertEquals("580", owd.get("parameters").get("count").asText());
            assertEquals("0.1", owd.get("parameters").get("interval").asText());
            cli = new picocli.CommandLine(new org.nmws.client.cli.NmwsCli());
            java.io.StringWriter out2 = new java.io.StringWriter();
            cli.setOut(new java.io.PrintWriter(out2, true));
            assertEquals(0, cli.execute("--url", service.baseUrl, "schedule", "remove", "nmwg-rtt"));
            assertTrue(out2.toString().contains("removed"), out2.toString());
            JsonNode all = get(service, "/api/schedules");
            assertEquals(1, all.size(), all.toString());
            assertEquals("owd-c", all.get(0).get("name").asText());
        }
    }

    /** The runs that reached their time, one line each, for a failure's message. */
    private static String brief(List<JsonNode> runs) {
        StringBuilder b = new StringBuilder();
        for (JsonNode r : runs) {
            if (!r.get("status").asText().equals("PLANNED")) {
                b.append(r.get("schedule").asText()).append(' ').append(r.get("planned").asText()).append(' ')
                        .append(r.get("status").asText()).append(' ').append(r.get("started").asText()).append(' ')
                        .append(r.get("ended").asText()).append(' ').append(r.get("reason").asText()).append('\n');
            }
        }
        return b.toString();
    }

    private static long done(List<JsonNode> runs) {
        return runs.stream().filter(r -> r.get("status").asText().equals("DONE")).count();
    }

    private static boolean overlap(JsonNode a, JsonNode b) {
        Instant as = Instant.parse(a.get("start").asText());
        Instant ae = Instant.parse(a.get("end").asText());
        Instant bs = Instant.parse(b.get("start").asText());
        Instant be = Instant.parse(b.get("end").asText());
        return as.isBefore(be) && bs.isBefore(ae);
    }

    private List<JsonNode> observations(Service s, String characteristic, String dst) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        get(s, "/api/results?dst=" + dst + "&characteristic=" + characteristic + "&limit=1000").get("results").forEach(out::add);
        return out;
    }

    private void put(Service s, String name, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    private JsonNode get(Service s, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private List<JsonNode> runs(Service s, String name) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        get(s, "/api/schedules/" + name + "/runs?limit=1000").forEach(out::add);
        return out;
    }
}
