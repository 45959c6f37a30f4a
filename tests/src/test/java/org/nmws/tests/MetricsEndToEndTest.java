package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus endpoint through real HTTP after real tests: counters move by exactly the
 * tests run, a path's gauge reads the value the archive keeps, the number of paths kept as
 * gauges is bounded, scheduled runs are counted by what became of them, and nothing but the
 * operators' endpoints is exposed.
 */
class MetricsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** One sample line of the Prometheus text format: name{labels} value. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)$");

    @Test
    void testsAreCountedTimedAndTheirLastValuesReadAsTheArchiveKeepsThem() throws Exception {
        try (Responder responder = Responder.start();
             Service service = Service.start(Files.createTempDirectory("nmws-metrics"), "--nmws.responder-port=" + responder.port,
                     "--nmws.metrics.max-paths=1",
                     // a schedule whose every run fails (no responder on 127.0.0.9): failed runs, then back-off non-starters
                     "--nmws.scheduler.schedules[0].name=nowhere", "--nmws.scheduler.schedules[0].characteristic=path.delay.oneWay",
                     "--nmws.scheduler.schedules[0].dst=127.0.0.9", "--nmws.scheduler.schedules[0].period=PT1S",
                     "--nmws.scheduler.schedules[0].parameters.count=5")) {
            String rtt = "nmws_tests_total{characteristic=\"path.delay.roundTrip\",outcome=\"ok\",test=\"round_trip\"}";
            String rttFailed = "nmws_tests_total{characteristic=\"path.delay.roundTrip\",outcome=\"failed\",test=\"round_trip\"}";
            String rttTimed = "nmws_test_duration_seconds_count{characteristic=\"path.delay.roundTrip\",outcome=\"ok\",test=\"round_trip\"}";
            Map<String, Double> before = scrape(service);

            String answer = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 7, ""), "application/xml", null).body();
            assertFalse(answer.contains("error."), answer);
            Map<String, Double> after = scrape(service);
            assertEquals(before.getOrDefault(rtt, 0.0) + 1, after.get(rtt), "one more round trip kept");
            assertEquals(before.getOrDefault(rttTimed, 0.0) + 1, after.get(rttTimed), "and timed");

            // A gauge per figure family in base units reads what /api/results gives for the test just kept.
            JsonNode kept = JSON.readTree(service.get("/api/results?dst=127.0.0.1&limit=1").body()).get("results").get(0);
            String labels = "characteristic=\"path.delay.roundTrip\",dst=\"127.0.0.1\",src=\"" + kept.get("srcAddress").asText() + "\"";
            JsonNode summary = kept.get("summary");
            for (String stat : new String[] {"min", "mean", "median", "max", "p99"}) {
                String key = "nmws_path_rtt_seconds{" + labels + ",stat=\"" + stat + "\",test=\"round_trip\"}";
                double ms = summary.get(stat + "Rtt").asDouble();
                assertEquals(ms / 1000, after.get(key), ms * 1e-15, key + " in\n" + after);
            }
            assertEquals(summary.get("lossPercent").asDouble() / 100, after.get("nmws_path_loss_ratio{" + labels + ",test=\"round_trip\"}"));
            assertEquals(7.0, after.get("nmws_path_sent{" + labels + ",test=\"round_trip\"}"));
            assertEquals(Instant.parse(kept.get("end").asText()).toEpochMilli() / 1000.0,
                    after.get("nmws_path_last_end_timestamp_seconds{" + labels + ",test=\"round_trip\"}"), 1e-3);
            // issue 26: no figure under one name with its unit in a label, no empty label
            assertTrue(after.keySet().stream().noneMatch(k -> k.startsWith("nmws_path_last{") || k.contains("=\"\"")), after.keySet().toString());

            // A round trip while a TCP test holds the path: busy, refused before it starts, counted apart from failures.
            java.util.concurrent.CompletableFuture<org.nmws.client.nmwg.Message> tcp = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> org.nmws.client.NmwsClient.soap11(service.baseUrl).measure("127.0.0.1", "path.bandwidth.achievable.TCP",
                            Map.of("timeDuration", "3")));
            for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline
                    && !service.get("/api/tests").body().contains("path.bandwidth.achievable.TCP"); ) {
                Thread.sleep(50);
            }
            String busy = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 3, ""), "application/xml", null).body();
            assertTrue(busy.contains("error.mp.busy"), busy);
            assertFalse(org.nmws.client.NmwsClient.eventTypes(tcp.get(30, java.util.concurrent.TimeUnit.SECONDS)).stream()
                    .anyMatch(t -> t.startsWith("error.")), "the TCP test ran");
            Map<String, Double> afterBusy = scrape(service);
            String notStarted = "nmws_tests_not_started_total{characteristic=\"path.delay.roundTrip\",reason=\"busy\",test=\"round_trip\"}";
            assertEquals(before.getOrDefault(notStarted, 0.0) + 1, afterBusy.get(notStarted));
            assertEquals(sum(after, "nmws_tests_total{characteristic=\"path.delay.roundTrip\""),
                    sum(afterBusy, "nmws_tests_total{characteristic=\"path.delay.roundTrip\""), "a busy round trip is no test that ran");

            // Refused before admission (a parameter the test does not read): not started, reason parameter (issue 26).
            String typo = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 3,
                    "<nmwg:parameter name=\"cnt\">5</nmwg:parameter>"), "application/xml", null).body();
            assertTrue(typo.contains("error.common.parameter"), typo);
            String refused = "nmws_tests_not_started_total{characteristic=\"path.delay.roundTrip\",reason=\"parameter\",test=\"round_trip\"}";
            assertEquals(before.getOrDefault(refused, 0.0) + 1, scrape(service).get(refused), "a refused request is counted");

            // A test that fails (nothing listens on port 1) is counted as failed and leaves no gauge.
            String failed = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 3,
                    "<nmwg:parameter name=\"port\">1</nmwg:parameter>"), "application/xml", null).body();
            assertTrue(failed.contains("error.mp.measurement"), failed);
            // A second path with max-paths=1: the first path's series go.
            answer = service.post("/nmwg", SoapEndToEndTest.measurementRequest("localhost", 3, "")
                    .replace("type=\"ipv4\"", "type=\"hostname\""), "application/xml", null).body();
            assertFalse(answer.contains("error."), answer);
            Map<String, Double> last = scrape(service);
            assertEquals(before.getOrDefault(rttFailed, 0.0) + 1, last.get(rttFailed), "one failed round trip");
            assertEquals(before.getOrDefault(rtt, 0.0) + 2, last.get(rtt), "two kept");
            assertTrue(last.keySet().stream().noneMatch(k -> k.startsWith("nmws_path_") && k.contains("dst=\"127.0.0.1\"")),
                    "the older path was dropped: " + last.keySet());
            assertEquals(3.0, last.entrySet().stream().filter(e -> e.getKey().startsWith("nmws_path_sent{")
                    && e.getKey().contains("dst=\"localhost\"")).findFirst().orElseThrow().getValue());

            // The user guide's alert on the failing share of started tests, evaluated as Prometheus would over
            // the window since the first scrape (rate() over one window is increase / window: the window cancels):
            //   sum by (instance, test) (rate(nmws_tests_total{outcome!="ok"}[15m]))
            //     / sum by (instance, test) (rate(nmws_tests_total[15m])) > 0.1
            // Two round trips kept, one failed, one busy: 1 / 3, and it fires; with busy counted as a failure
            // (as before issue 26) it would read 2 / 4.
            double failing = increase(before, last, "nmws_tests_total{", "test=\"round_trip\"", "outcome=\"ok\"");
            double all = increase(before, last, "nmws_tests_total{", "test=\"round_trip\"", null);
            assertEquals(1.0 / 3, failing / all, 1e-12);
            assertTrue(failing / all > 0.1, "the alert fires");
            // the stale-path alert: time() - nmws_path_last_end_timestamp_seconds > 900 does not fire for a path just tested
            double age = Instant.now().toEpochMilli() / 1000.0 - last.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("nmws_path_last_end_timestamp_seconds{") && e.getKey().contains("dst=\"localhost\""))
                    .findFirst().orElseThrow().getValue();
            assertTrue(age >= 0 && age < 900, "age " + age);
            // the loss alert: nmws_path_loss_ratio > 0.01 does not fire on loopback
            assertTrue(last.entrySet().stream().filter(e -> e.getKey().startsWith("nmws_path_loss_ratio{"))
                    .allMatch(e -> e.getValue() <= 0.01), last.toString());

            // The schedule's runs to a host without a responder: failed ones, then back-off non-starters.
            long deadline = System.nanoTime() + 20_000_000_000L;
            Map<String, Double> runs;
            String failedRuns = "nmws_scheduled_runs_total{outcome=\"failed\"}";
            String backedOff = "nmws_scheduled_runs_not_started_total{reason=\"backoff\"}";
            do {
                Thread.sleep(500);
                runs = scrape(service);
            } while ((runs.get(failedRuns) == null || runs.get(backedOff) == null) && System.nanoTime() < deadline);
            assertTrue(runs.getOrDefault(failedRuns, 0.0) >= 1 && runs.getOrDefault(backedOff, 0.0) >= 1,
                    "failed and backed-off runs counted: " + runs);
            assertTrue(runs.get("nmws_tests_total{characteristic=\"path.delay.oneWay\",outcome=\"failed\",test=\"udp_stream\"}") >= 1,
                    "the scheduled tests count as tests too: " + runs);
            assertTrue(runs.containsKey("nmws_tests_running"), "the running tests' gauge is there");

            // Only the operators' endpoints are exposed.
            assertEquals(404, service.get("/actuator/env").statusCode());
            assertEquals(404, service.get("/actuator/heapdump").statusCode());
        }
    }

    /** The sum of the samples whose key starts with prefix. */
    private static double sum(Map<String, Double> samples, String prefix) {
        return samples.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
    }

    /** How much the samples of prefix having label (and not the label without, if given) grew from a to b. */
    private static double increase(Map<String, Double> a, Map<String, Double> b, String prefix, String label, String without) {
        double d = 0;
        for (Map.Entry<String, Double> e : b.entrySet()) {
            String k = e.getKey();
            if (k.startsWith(prefix) && k.contains(label) && (without == null || !k.contains(without))) {
                d += e.getValue() - a.getOrDefault(k, 0.0);
            }
        }
        return d;
    }

    /** Every sample of /actuator/prometheus by its name and labels as written. */
    static Map<String, Double> scrape(Service service) throws Exception {
        HttpResponse<String> r = service.get("/actuator/prometheus");
        assertEquals(200, r.statusCode(), "anonymous clients have the read role by default");
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), r.headers().toString());
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return samples;
    }
}
