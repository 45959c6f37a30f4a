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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Coordinated runs (issue 24): two points schedule a round trip of about 2.5 s to one responder
 * at the same instants (slip 0, one period, slots aligned alike). Without agreement the second
 * to arrive finds the responder busy past its 2 s grace and does not start; with each run's
 * slot agreed with the responder's calendar beforehand, the second is moved behind the first
 * and every run starts. Counted from GET /api/schedules/{name}/runs. Exclusive schedules that
 * cannot fit at that responder together are refused when added.
 */
class AgreedSlotsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RTT = "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT8S\","
            + "\"slip\":\"PT0S\",\"parameters\":{\"count\":\"50\",\"interval\":\"0.05\"}}";
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void twoPointsMeetingAtOneResponderAgreeTheirSlotsAndEveryRunStarts() throws Exception {
        try (Responder responder = Responder.start()) {
            // Before: no agreement. Each colliding slot leaves one of the two busy (watched for up to 18 s).
            List<JsonNode> before = twoPoints(responder, false, Duration.ofSeconds(18), AgreedSlotsEndToEndTest::oneBusy);
            assertTrue(before.stream().anyMatch(r -> r.get("status").asText().equals("NONSTARTER")
                    && r.get("reason").asText().contains("busy")), "without agreement a run meets the other point's: "
                    + brief(before));

            // After: agreed slots. Every run that came due started and ran, none busy (watched for up
            // to 40 s, until three slots of each point and two slots of both came due).
            List<JsonNode> after = twoPoints(responder, true, Duration.ofSeconds(40),
                    runs -> runs.size() >= 6 && pairs(runs) >= 2);
            assertTrue(after.size() >= 6, "three slots or more of each point came due: " + brief(after));
            for (JsonNode r : after) {
                assertEquals("DONE", r.get("status").asText(), "every agreed run started and ran: " + brief(after));
            }
            // The two points' runs of one slot were planned at one instant and ran one after the other.
            Map<Long, List<JsonNode>> bySlot = bySlot(after);
            int pairs = 0;
            for (List<JsonNode> pair : bySlot.values()) {
                if (pair.size() == 2) {
                    pairs++;
                    JsonNode first = Instant.parse(pair.get(0).get("started").asText())
                            .isBefore(Instant.parse(pair.get(1).get("started").asText())) ? pair.get(0) : pair.get(1);
                    JsonNode second = first == pair.get(0) ? pair.get(1) : pair.get(0);
                    assertTrue(!Instant.parse(second.get("started").asText()).isBefore(Instant.parse(first.get("ended").asText())),
                            "the second of a slot started after the first ended: " + brief(pair));
                }
            }
            assertTrue(pairs >= 2, "both points ran in two slots or more: " + brief(after));
            assertTrue(Files.readString(responder.log).contains("reserved"), "the responder granted the slots");
        }
    }

    /**
     * An on-demand test holds the responder with no reservation; its "free from" is its longest
     * expected end, later than it really ends. Runs refused for it while booking a period ahead
     * are asked for again, so those due after it ended run (they were non-starters before: the
     * mesh test's cost refresh left a schedule without a run for 14 s).
     */
    @Test
    void runsRefusedForAnOnDemandTestAreBookedAgainOnceItEnds() throws Exception {
        try (Responder responder = Responder.start();
             Service a = Service.start(Files.createTempDirectory("nmws-slots-live"), "--nmws.responder-port=" + responder.port,
                     "--nmws.measurement-point=point-a")) {
            java.util.concurrent.CompletableFuture<Instant> tcp = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                org.nmws.client.NmwsClient.soap11(a.baseUrl).measure("127.0.0.1", "path.bandwidth.achievable.TCP",
                        Map.of("timeDuration", "3"));
                return Instant.now();
            });
            Thread.sleep(500); // the TCP test holds the responder
            put(a, "rtt-live", "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT2S\","
                    + "\"slip\":\"PT0S\",\"parameters\":{\"count\":\"5\",\"interval\":\"0.01\"}}");
            Instant tcpEnded = tcp.get(30, java.util.concurrent.TimeUnit.SECONDS);
            // for up to 8 s, until two runs came due after the on-demand test ended
            long deadline = System.nanoTime() + 8_000_000_000L;
            List<JsonNode> after = new ArrayList<>();
            List<JsonNode> all = new ArrayList<>();
            while (true) {
                after.clear();
                all.clear();
                for (JsonNode r : get(a, "/api/schedules/rtt-live/runs?limit=1000")) {
                    all.add(r);
                    Instant planned = Instant.parse(r.get("planned").asText());
                    if (planned.isAfter(tcpEnded.plusMillis(1500)) && planned.isBefore(Instant.now().minusSeconds(2))) {
                        after.add(r);
                    }
                }
                if (after.size() >= 2 || System.nanoTime() >= deadline) {
                    break;
                }
                Thread.sleep(200);
            }
            assertTrue(after.size() >= 2, "runs came due after the on-demand test ended at " + tcpEnded + ": " + brief(all));
            for (JsonNode r : after) {
                assertEquals("DONE", r.get("status").asText(), "a run due after the on-demand test ended ran: " + brief(after));
            }
        }
    }

    /** Whether a run did not start because the responder was busy with the other point's. */
    private static boolean oneBusy(List<JsonNode> runs) {
        return runs.stream().anyMatch(r -> r.get("status").asText().equals("NONSTARTER")
                && r.get("reason").asText().contains("busy"));
    }

    private static Map<Long, List<JsonNode>> bySlot(List<JsonNode> runs) {
        Map<Long, List<JsonNode>> bySlot = new HashMap<>();
        for (JsonNode r : runs) {
            bySlot.computeIfAbsent(r.get("slot").asLong(), k -> new ArrayList<>()).add(r);
        }
        return bySlot;
    }

    /** How many slots both points' runs are in. */
    private static int pairs(List<JsonNode> runs) {
        return (int) bySlot(runs).values().stream().filter(p -> p.size() == 2).count();
    }

    /**
     * Two points, each with one round-trip schedule to the responder, until their runs that came
     * due and ended are enough (read every 200 ms), at most for the bound; those runs.
     */
    private List<JsonNode> twoPoints(Responder responder, boolean agree, Duration bound,
                                     java.util.function.Predicate<List<JsonNode>> enough) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        String[] common = {"--nmws.responder-port=" + responder.port, "--nmws.scheduler.agree-slots=" + agree};
        try (Service a = Service.start(Files.createTempDirectory("nmws-slots-a"), with(common, "--nmws.measurement-point=point-a"));
             Service b = Service.start(Files.createTempDirectory("nmws-slots-b"), with(common, "--nmws.measurement-point=point-b"))) {
            put(a, "rtt-a", RTT);
            put(b, "rtt-b", RTT);
            if (agree) {
                // exclusive tests that cannot fit at that responder are refused when added, naming
                // both (planned from 2099 on: they never run here)
                String bw = "{\"characteristic\":\"path.bandwidth.achievable.TCP\",\"dst\":\"127.0.0.1\",\"period\":"
                        + "\"PT10S\",\"start\":\"2099-01-01T00:00:00Z\",\"parameters\":{\"timeDuration\":\"6\"}}";
                put(a, "bw-1", bw);
                HttpResponse<String> refused = send(a, "bw-2", bw);
                assertEquals(400, refused.statusCode(), refused.body());
                assertTrue(refused.body().contains("no time available at 127.0.0.1:" + responder.port)
                        && refused.body().contains("bw-1 (6.5 s every 10.0 s), bw-2 (6.5 s every 10.0 s) need 130 %"),
                        refused.body());
            }
            long deadline = System.nanoTime() + bound.toNanos();
            while (true) {
                out.clear();
                Instant ended = Instant.now().minusSeconds(7); // runs due by then have ended (2.5 s, moved by up to 4 s)
                for (Object[] p : new Object[][] {{a, "rtt-a"}, {b, "rtt-b"}}) {
                    for (JsonNode r : get((Service) p[0], "/api/schedules/" + p[1] + "/runs?limit=1000")) {
                        if (Instant.parse(r.get("planned").asText()).isBefore(ended)) {
                            out.add(r);
                        }
                    }
                }
                if (enough.test(out) || System.nanoTime() >= deadline) {
                    break;
                }
                Thread.sleep(200);
            }
        }
        return out;
    }

    private static String[] with(String[] common, String more) {
        String[] all = java.util.Arrays.copyOf(common, common.length + 1);
        all[common.length] = more;
        return all;
    }

    private static String brief(List<JsonNode> runs) {
        StringBuilder b = new StringBuilder("\n");
        for (JsonNode r : runs) {
            b.append(r.get("schedule").asText()).append(" slot ").append(r.get("slot").asText()).append(' ')
                    .append(r.get("planned").asText()).append(' ').append(r.get("status").asText()).append(' ')
                    .append(r.get("started").asText()).append(' ').append(r.get("ended").asText()).append(' ')
                    .append(r.get("reason").asText()).append('\n');
        }
        return b.toString();
    }

    private void put(Service s, String name, String body) throws Exception {
        HttpResponse<String> r = send(s, name, body);
        assertEquals(200, r.statusCode(), r.body());
    }

    private HttpResponse<String> send(Service s, String name, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(Service s, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
